export function showSymbol(symbol: string, note: string): void {
  const el = document.getElementById("symbol");
  if (el) {
    el.innerHTML = "<b>" + symbol + "</b>";
  }
  document.write(note);
}
