-- doc
function f(a)
  return a
end
local function g() end
function M.h() end
function M:i() end
local t = function() end
