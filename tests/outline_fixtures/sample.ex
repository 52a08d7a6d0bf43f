defmodule M do
  @doc "doc"
  def f(a) do
    a
  end
  defp g(a) when a > 1, do: a
  defmacro m, do: 1
end
