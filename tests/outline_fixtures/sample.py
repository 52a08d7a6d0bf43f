import os
MAX = 3
@dec
class Foo(Base):
    """Doc of Foo."""
    def m(self, a):
        """Doc m."""
        return a

def f():
    pass

async def fetch(url):
    # comment
    data = await get(url)
    return data
