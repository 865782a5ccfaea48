// A line editor over an xterm.js terminal: a prompt, editing (left/right, home/end, backspace,
// delete, Ctrl-A/E/U/K/W/D, words with Alt-B/F or Ctrl-Left/Right), history (up/down, kept in localStorage across reloads), Tab
// completion, Ctrl-L to clear, and Ctrl-C. Enter on incomplete input (an open `do`, quote or
// bracket) continues on a "> " line; a multi-line paste becomes one entry, run as one
// execution. While a command runs, typed keys are kept for the next prompt, except Ctrl-C,
// which interrupts the command. Wide characters (CJK, emoji) take two columns: the editor tells
// the terminal its widths (cellWidth) and places the cursor by them.

const ESC = "\x1b";
const KEYS = {
  "\r": "enter", "\t": "complete", "\x7f": "backspace", "\b": "backspace", "\x03": "interrupt", "\x0c": "clear",
  "\x01": "home", "\x05": "end", "\x15": "killStart", "\x0b": "killEnd", "\x17": "killWord",
  "\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
  "\x1b[H": "home", "\x1b[F": "end", "\x1bOH": "home", "\x1bOF": "end",
  "\x1b[1~": "home", "\x1b[4~": "end", "\x1b[3~": "delete",
  "\x04": "delete", // Ctrl-D; on an empty line (bash's exit) nothing: the page stays
  "\x1bb": "wordLeft", "\x1bf": "wordRight", "\x1b[1;5D": "wordLeft", "\x1b[1;5C": "wordRight",
  "\x1b[1;3D": "wordLeft", "\x1b[1;3C": "wordRight",
};
const HISTORY_LIMIT = 500;
const CONTINUATION = "> ";
const NEWLINE = "\u23ce"; // how a recalled multi-line entry shows its line breaks (⏎)
const TAB = "\u21e5"; // how the line shows a tab (⇥): pasted, as in a `<<-` here-document
// The entry as run from the line as shown, and the other way round.
const entered = (text) => text.replaceAll(NEWLINE, "\n").replaceAll(TAB, "\t");
const shown = (text) => text.replace(/\n/g, NEWLINE).replace(/\t/g, TAB);

// An escape sequence (an arrow, Home...) or Alt with a printable key (Escape then the key).
const ESCAPES = /\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z]|(?![[O])[ -~])/g;

// Split terminal input into keys: escape sequences, control characters, runs of text.
function* keys(data) {
  let i = 0;
  while (i < data.length) {
    if (data[i] === ESC) {
      // Never typed as text.
      const match = new RegExp(`^${ESCAPES.source}`).exec(data.slice(i));
      const key = match ? match[0] : ESC;
      yield key;
      i += key.length;
    } else if (data[i] < " " || data[i] === "\x7f") {
      yield data[i++];
    } else {
      let j = i;
      while (j < data.length && data[j] >= " " && data[j] !== "\x7f" && data[j] !== ESC) j++;
      yield data.slice(i, j);
      i = j;
    }
  }
}

// Columns a code point takes: 2 for East Asian wide and full-width characters and emoji, 0 for
// combining marks, zero-width spaces and variation selectors, else 1 (a short table after
// Unicode's East Asian Width; what matters is that the terminal, which is given this same
// function, and the editor's cursor arithmetic agree).
const WIDE = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0],
  [0x23f3, 0x23f3], [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f],
  [0x2693, 0x2693], [0x26a1, 0x26a1], [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5],
  [0x26ce, 0x26ce], [0x26d4, 0x26d4], [0x26ea, 0x26ea], [0x26f2, 0x26f3], [0x26f5, 0x26f5],
  [0x26fa, 0x26fa], [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b], [0x2728, 0x2728],
  [0x274c, 0x274c], [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797],
  [0x27b0, 0x27b0], [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55],
  [0x2e80, 0x303e], [0x3041, 0x4dbf], [0x4e00, 0xa4cf], [0xa960, 0xa97f], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x16fe0, 0x18aff], [0x1b000, 0x1b2ff], [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a], [0x1f200, 0x1f265], [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff], [0x1f7e0, 0x1f7eb], [0x1f90c, 0x1f9ff], [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];
const ZERO = [
  [0x0300, 0x036f], [0x0483, 0x0489], [0x0591, 0x05bd], [0x0610, 0x061a], [0x064b, 0x065f],
  [0x1ab0, 0x1aff], [0x1dc0, 0x1dff], [0x200b, 0x200f], [0x20d0, 0x20ff], [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f], [0xe0100, 0xe01ef],
];
const within = (ranges, cp) => ranges.some(([low, high]) => cp >= low && cp <= high);
export function cellWidth(cp) {
  if (cp < 0x300) return cp < 32 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  return within(ZERO, cp) ? 0 : within(WIDE, cp) ? 2 : 1;
}

// cellWidth as xterm.js's Unicode version (its interface: the width in bits 1-2 of a character's
// properties, bit 0 set when a zero-width character joins the one before, as its built-in does).
const UNICODE = {
  version: "corral",
  wcwidth: cellWidth,
  charProperties(cp, preceding) {
    let width = cellWidth(cp);
    const before = (preceding >> 1) & 3;
    const join = width === 0 && preceding !== 0 && before !== 0;
    if (join) width = before;
    return (width << 1) | (join ? 1 : 0);
  },
};

const textWidth = (text) => [...text].reduce((sum, char) => sum + cellWidth(char.codePointAt(0)), 0);
const visibleWidth = (text) => textWidth(text.replace(/\x1b\[[0-9;]*m/g, ""));

// The history saved under `key` in localStorage (none if storage is unavailable).
function loadHistory(key) {
  try {
    const saved = JSON.parse(localStorage.getItem(key) || "[]");
    return Array.isArray(saved) ? saved.filter((entry) => typeof entry === "string") : [];
  } catch {
    return [];
  }
}

export class LineEditor {
  // onLine(text): run an entry; onInterrupt(): Ctrl-C while not reading; isComplete(text):
  // false continues the entry on a new line; complete(textBeforeCursor): a promise of
  // {start, candidates}; historyKey: the localStorage key of the history.
  constructor(term, { onLine, onInterrupt, isComplete, complete, historyKey }) {
    this.term = term;
    this.onLine = onLine;
    this.onInterrupt = onInterrupt;
    this.isComplete = isComplete ?? (() => true);
    this.completer = complete;
    this.historyKey = historyKey;
    this.line = [];            // the characters being edited
    this.cursor = 0;           // index into this.line
    this.lines = [];           // the lines already entered of an incomplete entry
    this.promptText = "";
    this.shown = "";           // the prompt on the current line: promptText or CONTINUATION
    this.at = { row: 0, col: 0 }; // where the terminal's cursor is (position)
    this.reading = false;      // a prompt is shown and accepts input
    this.typeahead = "";       // input received while a command ran
    this.history = historyKey ? loadHistory(historyKey) : [];
    this.historyIndex = this.history.length;
    this.draft = [];
    this.transcript = "";      // everything shown, as plain text (for tests and copy)
    try {
      term.unicode.register(UNICODE); // needs the terminal's allowProposedApi
      term.unicode.activeVersion = UNICODE.version;
    } catch { /* its own widths: wide characters may then misplace the cursor */ }
    term.onData((data) => this.receive(data));
  }

  // Output from a command (newlines become CRLF for the terminal).
  write(text) {
    this.transcript += text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
    this.term.write(text.replace(/\r?\n/g, "\r\n"));
  }

  prompt(text) {
    this.promptText = text;
    this.line = [];
    this.lines = [];
    this.cursor = 0;
    this.historyIndex = this.history.length;
    this.showPrompt(text);
    this.reading = true;
    const pending = this.typeahead;
    this.typeahead = "";
    if (pending) this.receive(pending);
  }

  // Change the prompt in place, keeping what was typed.
  setPrompt(text) {
    if (!this.reading || this.lines.length) {
      this.promptText = text;
      return;
    }
    const cursor = this.cursor;
    this.moveTo(0);
    this.term.write("\r\x1b[J");
    this.promptText = text;
    this.showPrompt(text);
    this.cursor = 0;
    this.redraw(cursor);
  }

  // Write the prompt `text` at the start of a row: the input follows it.
  showPrompt(text) {
    this.shown = text;
    this.write(text);
    this.at = this.position(0);
  }

  // Put `text` on the prompt line and run it, as if typed (the example buttons use this).
  submit(text) {
    if (!this.reading) return false;
    this.replaceLine([...text]);
    this.receive("\r");
    return true;
  }

  receive(data) {
    if (this.reading && data.length > 1 && /[\r\n]/.test(data)) return this.paste(data);
    for (const key of keys(data)) {
      if (!this.reading) {
        if (key === "\x03") this.onInterrupt();
        else this.typeahead += key;
        continue;
      }
      const action = KEYS[key];
      if (action) this[action]();
      else if (key >= " ") this.insert([...key]);
    }
  }

  // Pasted text: each line break but a final one continues the entry; a final one enters it,
  // so a pasted script (a heredoc, a loop) runs as one execution.
  paste(data) {
    const parts = data.replace(/\r\n?/g, "\n").split("\n");
    const enter = parts.at(-1) === "";
    if (enter) parts.pop();
    parts.forEach((part, i) => {
      // (Keys typed while a command ran come here too: an arrow's sequence is dropped whole.)
      const text = shown(part).replace(ESCAPES, "").replace(/[\x00-\x1f\x7f]/g, "");
      if (text) this.insert([...text]);
      if (i < parts.length - 1) this.newline();
    });
    if (enter) this.enter();
  }

  // --- actions ------------------------------------------------------------------------------

  // End the current line of the entry and continue it on a "> " line.
  newline() {
    const text = this.line.join("");
    this.moveTo(this.line.length);
    this.transcript += text;
    this.write("\n");
    this.lines.push(text);
    this.line = [];
    this.cursor = 0;
    this.showPrompt(CONTINUATION);
  }

  enter() {
    const text = entered([...this.lines, this.line.join("")].join("\n"));
    if (!this.isComplete(text)) return this.newline();
    this.moveTo(this.line.length);
    this.transcript += this.line.join("");
    this.write("\n");
    this.reading = false;
    this.lines = [];
    if (text.trim() && text !== this.history[this.history.length - 1]) {
      this.history.push(text);
      if (this.history.length > HISTORY_LIMIT) this.history.shift();
      this.saveHistory();
    }
    this.onLine(text);
  }

  saveHistory() {
    try {
      if (this.historyKey) localStorage.setItem(this.historyKey, JSON.stringify(this.history));
    } catch { /* storage full or disabled: the history lasts for this page */ }
  }

  interrupt() {
    this.moveTo(this.line.length);
    this.transcript += this.line.join("");
    this.write("^C\n");
    this.prompt(this.promptText);
  }

  clear() {
    const cursor = this.cursor;
    this.term.clear();
    this.term.write("\x1b[H\x1b[2J");
    this.term.write(this.shown);
    this.at = this.position(0);
    this.cursor = 0;
    this.redraw(cursor);
  }

  // Tab: complete the word before the cursor; with several candidates, insert what they share
  // or, if nothing, list them under the line.
  async complete() {
    if (!this.completer) return;
    const before = this.line.slice(0, this.cursor).join("");
    const line = this.line.join("");
    let answer;
    try {
      answer = await this.completer(before);
    } catch {
      return;
    }
    if (!this.reading || this.line.join("") !== line || !answer) return;
    const { start, candidates } = answer;
    if (!candidates.length) return;
    const word = before.slice(start);
    let common = candidates[0];
    for (const c of candidates) while (!c.startsWith(common)) common = common.slice(0, -1);
    if (candidates.length === 1 && !common.endsWith("/")) common += " ";
    if (common.length > word.length && common.startsWith(word)) {
      return this.insert([...common.slice(word.length)]);
    }
    if (candidates.length > 1) this.list(candidates);
  }

  // Print `items` in columns under the entry, then the prompt and the line again.
  list(items) {
    const cursor = this.cursor;
    this.moveTo(this.line.length);
    const width = Math.max(...items.map(textWidth)) + 2;
    const perRow = Math.max(1, Math.floor(this.term.cols / width));
    let text = "\n";
    items.forEach((item, i) => {
      text += item + " ".repeat(width - textWidth(item));
      if ((i + 1) % perRow === 0 || i === items.length - 1) text = text.trimEnd() + "\n";
    });
    this.write(text);
    this.showPrompt(this.shown);
    this.cursor = 0;
    this.redraw(cursor);
  }

  insert(chars) {
    this.line.splice(this.cursor, 0, ...chars);
    this.redraw(this.cursor + chars.length);
  }

  backspace() {
    if (this.cursor === 0) return;
    this.line.splice(this.cursor - 1, 1);
    this.redraw(this.cursor - 1);
  }

  delete() {
    if (this.cursor >= this.line.length) return;
    this.line.splice(this.cursor, 1);
    this.redraw(this.cursor);
  }

  // By characters as shown: a combining mark moves with the character before it.
  left() {
    let to = Math.max(0, this.cursor - 1);
    while (to > 0 && this.zeroWidth(to)) to--;
    this.moveTo(to);
  }

  right() {
    let to = Math.min(this.line.length, this.cursor + 1);
    while (to < this.line.length && this.zeroWidth(to)) to++;
    this.moveTo(to);
  }

  zeroWidth(index) { return cellWidth(this.line[index].codePointAt(0)) === 0; }
  // Alt-B/F, Ctrl- or Alt-Left/Right: to the start of this word or the end of the next.
  wordLeft() {
    let to = this.cursor;
    while (to > 0 && !/[\p{L}\p{N}_]/u.test(this.line[to - 1])) to--;
    while (to > 0 && /[\p{L}\p{N}_]/u.test(this.line[to - 1])) to--;
    this.moveTo(to);
  }

  wordRight() {
    let to = this.cursor;
    while (to < this.line.length && !/[\p{L}\p{N}_]/u.test(this.line[to])) to++;
    while (to < this.line.length && /[\p{L}\p{N}_]/u.test(this.line[to])) to++;
    this.moveTo(to);
  }

  home() { this.moveTo(0); }
  end() { this.moveTo(this.line.length); }

  killStart() {
    this.line.splice(0, this.cursor);
    this.redraw(0);
  }

  killEnd() {
    this.line.length = this.cursor;
    this.redraw(this.cursor);
  }

  killWord() {
    let start = this.cursor;
    while (start > 0 && this.line[start - 1] === " ") start--;
    while (start > 0 && this.line[start - 1] !== " ") start--;
    this.line.splice(start, this.cursor - start);
    this.redraw(start);
  }

  up() {
    if (this.historyIndex === 0 || this.lines.length) return;
    if (this.historyIndex === this.history.length) this.draft = this.line.slice();
    this.historyIndex--;
    this.replaceLine([...shown(this.history[this.historyIndex])]);
  }

  down() {
    if (this.historyIndex >= this.history.length || this.lines.length) return;
    this.historyIndex++;
    const next = this.historyIndex === this.history.length
      ? this.draft
      : [...shown(this.history[this.historyIndex])];
    this.replaceLine(next.slice());
  }

  // --- drawing (the input may wrap over several rows) ---------------------------------------

  replaceLine(chars) {
    this.line = chars;
    this.redraw(chars.length);
  }

  // The row (from the prompt's) and column after the prompt and `index` characters: a wide
  // character that does not fit at the end of a row goes to the next, as the terminal does.
  position(index) {
    const cols = this.term.cols;
    let row = Math.floor(visibleWidth(this.shown) / cols);
    let col = visibleWidth(this.shown) % cols;
    for (let i = 0; i < Math.min(index, this.line.length); i++) {
      const width = cellWidth(this.line[i].codePointAt(0));
      if (col + width > cols) [row, col] = [row + 1, 0];
      col += width;
      if (col >= cols) [row, col] = [row + 1, 0];
    }
    return { row, col };
  }

  // Move the terminal's cursor to input index `index` from where it is (`at`: the input
  // before it may just have changed).
  moveTo(index) {
    const a = this.at;
    const b = this.position(index);
    let seq = "";
    if (b.row < a.row) seq += `${ESC}[${a.row - b.row}A`;
    if (b.row > a.row) seq += `${ESC}[${b.row - a.row}B`;
    if (b.col !== a.col) seq += b.col > 0 ? `\r${ESC}[${b.col}C` : "\r";
    if (seq) this.term.write(seq);
    this.at = b;
    this.cursor = index;
  }

  // Rewrite the input from its start; leave the cursor at `to`.
  redraw(to) {
    this.moveTo(0);
    const text = this.line.join("");
    this.term.write(`${text}${ESC}[J`);
    this.at = this.position(this.line.length);
    if (this.at.col === 0 && this.line.length > 0) this.term.write("\r\n");
    this.cursor = this.line.length;
    this.moveTo(to);
  }
}
