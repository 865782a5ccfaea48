// A line editor over an xterm.js terminal: a prompt, editing (left/right, home/end, backspace,
// delete, Ctrl-A/E/U/K/W), history (up/down, kept in localStorage across reloads), Tab
// completion, Ctrl-L to clear, and Ctrl-C. Enter on incomplete input (an open `do`, quote or
// bracket) continues on a "> " line; a multi-line paste becomes one entry, run as one
// execution. While a command runs, typed keys are kept for the next prompt, except Ctrl-C,
// which interrupts the command.

const ESC = "\x1b";
const KEYS = {
  "\r": "enter", "\t": "complete", "\x7f": "backspace", "\b": "backspace", "\x03": "interrupt", "\x0c": "clear",
  "\x01": "home", "\x05": "end", "\x15": "killStart", "\x0b": "killEnd", "\x17": "killWord",
  "\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
  "\x1b[H": "home", "\x1b[F": "end", "\x1bOH": "home", "\x1bOF": "end",
  "\x1b[1~": "home", "\x1b[4~": "end", "\x1b[3~": "delete",
};
const HISTORY_LIMIT = 500;
const CONTINUATION = "> ";
const NEWLINE = "\u23ce"; // how a recalled multi-line entry shows its line breaks (⏎)

// Split terminal input into keys: escape sequences, control characters, runs of text.
function* keys(data) {
  let i = 0;
  while (i < data.length) {
    if (data[i] === ESC) {
      const match = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(data.slice(i));
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

const visibleLength = (text) => [...text.replace(/\x1b\[[0-9;]*m/g, "")].length;

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
    this.reading = false;      // a prompt is shown and accepts input
    this.typeahead = "";       // input received while a command ran
    this.history = historyKey ? loadHistory(historyKey) : [];
    this.historyIndex = this.history.length;
    this.draft = [];
    this.transcript = "";      // everything shown, as plain text (for tests and copy)
    term.onData((data) => this.receive(data));
  }

  // Output from a command (newlines become CRLF for the terminal).
  write(text) {
    this.transcript += text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
    this.term.write(text.replace(/\r?\n/g, "\r\n"));
  }

  prompt(text) {
    this.promptText = text;
    this.shown = text;
    this.line = [];
    this.lines = [];
    this.cursor = 0;
    this.historyIndex = this.history.length;
    this.write(text);
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
    this.shown = text;
    this.write(text);
    this.cursor = 0;
    this.redraw(0, cursor);
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
      const text = part.replace(/\t/g, "    ").replace(/[\x00-\x1f\x7f]/g, "");
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
    this.shown = CONTINUATION;
    this.write(CONTINUATION);
  }

  enter() {
    const text = [...this.lines, this.line.join("")].join("\n").replaceAll(NEWLINE, "\n");
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
    this.term.clear();
    this.term.write("\x1b[H\x1b[2J");
    this.term.write(this.shown);
    this.redraw(0);
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
    const width = Math.max(...items.map((item) => item.length)) + 2;
    const perRow = Math.max(1, Math.floor(this.term.cols / width));
    let text = "\n";
    items.forEach((item, i) => {
      text += item.padEnd(width);
      if ((i + 1) % perRow === 0 || i === items.length - 1) text = text.trimEnd() + "\n";
    });
    this.write(text);
    this.write(this.shown);
    this.cursor = 0;
    this.redraw(0, cursor);
  }

  insert(chars) {
    this.line.splice(this.cursor, 0, ...chars);
    this.redraw(this.cursor, this.cursor + chars.length);
  }

  backspace() {
    if (this.cursor === 0) return;
    this.line.splice(this.cursor - 1, 1);
    this.redraw(this.cursor, this.cursor - 1);
  }

  delete() {
    if (this.cursor >= this.line.length) return;
    this.line.splice(this.cursor, 1);
    this.redraw(this.cursor, this.cursor);
  }

  left() { this.moveTo(Math.max(0, this.cursor - 1)); }
  right() { this.moveTo(Math.min(this.line.length, this.cursor + 1)); }
  home() { this.moveTo(0); }
  end() { this.moveTo(this.line.length); }

  killStart() {
    this.line.splice(0, this.cursor);
    this.redraw(this.cursor, 0);
  }

  killEnd() {
    this.line.length = this.cursor;
    this.redraw(this.cursor, this.cursor);
  }

  killWord() {
    let start = this.cursor;
    while (start > 0 && this.line[start - 1] === " ") start--;
    while (start > 0 && this.line[start - 1] !== " ") start--;
    this.line.splice(start, this.cursor - start);
    this.redraw(this.cursor, start);
  }

  up() {
    if (this.historyIndex === 0 || this.lines.length) return;
    if (this.historyIndex === this.history.length) this.draft = this.line.slice();
    this.historyIndex--;
    this.replaceLine([...this.history[this.historyIndex].replace(/\n/g, NEWLINE)]);
  }

  down() {
    if (this.historyIndex >= this.history.length || this.lines.length) return;
    this.historyIndex++;
    const next = this.historyIndex === this.history.length
      ? this.draft
      : [...this.history[this.historyIndex].replace(/\n/g, NEWLINE)];
    this.replaceLine(next.slice());
  }

  // --- drawing (the input may wrap over several rows) ---------------------------------------

  replaceLine(chars) {
    const from = this.cursor;
    this.line = chars;
    this.redraw(from, chars.length);
  }

  position(index) {
    const offset = visibleLength(this.shown) + index;
    const cols = this.term.cols;
    return { row: Math.floor(offset / cols), col: offset % cols };
  }

  // Move the terminal's cursor from input index `from` to `to`.
  move(from, to) {
    const a = this.position(from);
    const b = this.position(to);
    let seq = "";
    if (b.row < a.row) seq += `${ESC}[${a.row - b.row}A`;
    if (b.row > a.row) seq += `${ESC}[${b.row - a.row}B`;
    seq += "\r";
    if (b.col > 0) seq += `${ESC}[${b.col}C`;
    this.term.write(seq);
  }

  moveTo(index) {
    if (index !== this.cursor) this.move(this.cursor, index);
    this.cursor = index;
  }

  // Rewrite the input from the start, the cursor being at `from`; leave it at `to`.
  redraw(from, to = from) {
    this.move(from, 0);
    const text = this.line.join("");
    this.term.write(`${text}${ESC}[J`);
    const end = this.position(this.line.length);
    if (end.col === 0 && this.line.length > 0) this.term.write("\r\n");
    this.cursor = this.line.length;
    this.moveTo(to);
  }
}
