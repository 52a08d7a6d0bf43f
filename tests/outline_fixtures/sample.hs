module M where
-- | doc
f :: Int -> Int
f x = x
data D = D Int
class C a where
  m :: a -> a
instance C Int where
  m = id
type A = Int
newtype N = N Int
