module M
  # doc
  class C < B
    def m(a)
      a
    end
    def self.s; end
  end
end
def top; end
