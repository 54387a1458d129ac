#!/usr/bin/env python3
"""shpatterns.py: shell patterns that make a test's check unfailable.

usage: shpatterns.py [--shellcheck JSON|DIR] [--codes SC1,SC2...] FILE...

Parses each bash FILE (a real parser: line continuations, comments, quotes,
$(...), `...`, <(...), here-documents, [[ ]], (( )), case, functions) and
prints one line per finding, "file:line: pattern-name: explanation"; exits
1 if there was any. Standard library only. Precision comes before recall:
each rule below is meant to flag only what is a real hole or clearly
arguable.

Background (bash 5, `set -e`): the shell does not stop at a failing
command that is part of an if/while/until condition, of a `!` pipeline,
or of an && / || list other than the list's last command; a subshell or
function run in such a context has set -e off inside it, whatever it says.
A command substitution has it off too (no `shopt -s inherit_errexit`).

Patterns:

check-and
    A check helper (a function that runs a command and records its verdict
    itself, e.g. check DESCRIPTION COMMAND...: CHECK_HELPERS below)
    followed by && or ||, e.g.
    `check "d" [ "$rc" = 3 ] && cmp -s a b`: the part after the operator
    is not part of the checked command; it runs (or not) outside the
    helper and its result is thrown away. Reported on the operator's line.

setsubshell-in-if
    A subshell that turns set -e on, `( set -e; ... )`, in a context where
    set -e is ignored: an if/while/until condition, a `!` pipeline, or an
    && / || list it is not the last command of (also as a pipeline element
    there: `if (set -e; f) | tee log; ...; then`). Its `set -e` has no
    effect: every command in it but the last may fail unseen.

mid-and-chain
    In code that relies on set -e, an `A && B` list whose last command is a
    test ([ ], [[ ]], (( )), test, grep -q, cmp, diff, kill -0, a checker
    command, a one-statement predicate function of the file or of a file
    it sources or is sourced with, or any `!` pipeline), in statement
    position: not in a condition, not followed
    by ||, not run in the background, and not the last command of a
    function body, subshell or file (directly or through an if / case /
    { } that is). Only the last command's failure stops the script: when
    A fails the list just returns 1 and the script goes on, so an
    assertion written as `[ x ] && [ y ]` checks nothing of x.
    The rule is the last command: `guard && action` (an assignment, echo,
    log, a command that does something) is fine, the action's own failure
    does stop the script; `A && test` is an assertion that does nothing
    for A. A conditional assertion `[ -n "$x" ] && [ "$x" -gt 0 ]` is
    flagged too: write it `if [ -n "$x" ]; then [ "$x" -gt 0 ]; fi` (or
    `[ -z "$x" ] || [ "$x" -gt 0 ]`), which says it is meant.
    "Relies on set -e": a file with `set -e` at its top level (from there
    on); a subshell that sets it; every function of a file that contains
    `set -e` anywhere or is sourced (`. file`, `source file`) by such a
    file among the files linted (tests/pkg/run.sh runs its steps under
    `(set -e; ...)`; tests/vm/guest.sh its cases under `(set -eE; ...)`,
    from lib.sh and cases/*.sh, which it sources by a path, `. "$HERE/
    lib.sh"`, and in a loop, `for f in "$HERE"/cases/*.sh; do . "$f";
    done`: a path is taken from the sourcing file's directory, see
    source_paths). A file and the files it sources by a path share their
    functions: each one's calls are resolved in all of them.
    Command substitutions are skipped (set -e is off inside them).

true-on-verdict
    `|| true` or `|| :` right after a verdict command: cmp, diff, grep -q,
    or a checker (python3 .../check*.py, or a variable holding such a
    command, e.g. CHECK="$PY $HERE/checklog.py"): the verdict is computed
    and thrown away. A diff or cmp whose output is captured (inside $( ),
    or piped) is not flagged.

early-reader
    Under pipefail (a file that sets it, or a file it sources: tests/vm/
    guest.sh runs its cases under `set -eE -o pipefail`), a pipeline whose
    later command stops reading before its input ends: grep -q, grep -m,
    head, sed with q, awk with exit outside END. The writer before it may
    then die of SIGPIPE, status 141, and the pipeline fails, or not, by
    timing: a check that passes or fails by the host's speed. Read to the
    end (grep ... > /dev/null, sed -n 1,Np, awk's `!n++`).

parse-error
    The file could not be parsed; nothing in it was checked.

With --shellcheck JSON (shellcheck -f json1 output for the same files; a
directory: every *.json in it), its findings are printed in the same
format, "file:line: SCnnnn: message"; with --codes only those codes and
shellcheck's parse errors (SC1xxx errors: the file was not checked). And
SC2310/SC2311 (set -e disabled inside a function invoked in a
condition / a command substitution) are kept only where they matter: the
call site runs under set -e (as above), not inside a subshell already
reported as setsubshell-in-if, and the function is set-e sensitive: with
set -e off a check in it can fail unseen. That is, before its last
statement (or anywhere in a loop body), directly or in the bodies of its
if / case / { } / ( ), it has a statement whose last command is a test
(as in mid-and-chain) or a call to a check function (one that ends with a
test or has a `return N` / `exit N` other than 0), or it calls a sensitive
function. `if pred; then` on a one-command predicate, or `x=$(f)` on a
function that only gathers output, is not reported.
"""

import bisect
import glob
import json
import os
import re
import sys

# ---- configuration ------------------------------------------------------

# check helpers: functions that run a command and record its verdict
# themselves, so their own status is not the command's. check DESC CMD...
# (tests/unit/check.sh), step NAME CMD... (tests/pkg/run.sh,
# tests/run-all.sh), run_case NAME (tests/vm/guest.sh: runs the case
# function NAME), ok_if (a common name for one)
CHECK_HELPERS = {"check", "step", "run_case", "ok_if"}

# a checker script (its exit status is a test's verdict): matched against
# the command's script argument or a variable's assigned value
CHECKER_RE = re.compile(r"[\w.-]*check[\w.-]*\.py\b")

# commands whose exit status is a verdict (mid-and-chain's "test" and
# true-on-verdict's "verdict"; grep needs -q, kill needs -0)
TEST_COMMANDS = {"[", "test", "cmp", "diff"}
VERDICT_COMMANDS = {"cmp", "diff"}
GREP_NAMES = {"grep", "egrep", "fgrep"}

# commands that run the rest of their arguments as the command
WRAPPERS = {"command", "builtin", "env", "timeout", "nice", "sudo"}

EXPLAIN = {
    "check-and": "`%s ... %s`: %s binds outside the check helper, so what "
                 "follows it is not part of the checked command%s",
    "setsubshell-in-if": "`( set -e; ... )` in %s: set -e is ignored there, "
                         "a failing command inside does not stop the subshell; "
                         "run it as its own statement and test its status "
                         "afterwards (e.g. `(set -e; ...); rc=$?`, or "
                         "`rc=${PIPESTATUS[0]}` after a pipeline)",
    "mid-and-chain": "`%s` in code that relies on set -e: when a command but "
                     "the last fails the list only returns 1 and the script "
                     "goes on, so this assertion checks nothing; write one "
                     "command per line, or `if ...; then ...; fi` for a "
                     "conditional check",
    "true-on-verdict": "`%s || %s` throws the verdict of %s away; drop the "
                       "`|| %s` (let the check fail) or act on the result",
    "early-reader": "`%s` stops reading its input before the end: under "
                    "pipefail the command before it may die of SIGPIPE (141) "
                    "and fail the pipeline by timing; read to the end (grep "
                    "... > /dev/null, sed -n 1,Np, awk '... && !n++')",
}


def early_reader(c):
    """the name of the way command c stops reading early, or None"""
    ws = simple_words(c)
    if ws is None:
        return None
    name = ws[0].lit
    args = [w.lit for w in ws[1:]]
    if name in GREP_NAMES:
        if grep_quiet(ws[1:]):
            return name + " -q"
        if any(a is not None and (a.startswith("-m") or a.startswith("--max-count"))
               for a in args):
            return name + " -m"
        return None
    if name == "head":
        return "head"
    if name == "sed":
        for a in args:
            if a is not None and not a.startswith("-") and re.search(r"(^|[;}\d/$])\s*[qQ]\s*\d*\s*($|[;}])", a):
                return "sed ...q"
        return None
    if name in ("awk", "gawk", "mawk"):
        for a in args:
            if a is None or a.startswith("-"):
                continue
            prog = re.sub(r"\bEND\s*\{[^}]*\}", "", a)
            if re.search(r"\bexit\b", prog):
                return "awk ... exit"
            break
    return None


# ---- parser -------------------------------------------------------------

class ParseError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line
        self.msg = msg


class Word:
    """A shell word: raw source text, its value when it is a plain literal
    (quotes removed; None if it has an expansion), its line, and the parsed
    bodies of the command/process substitutions in it."""
    __slots__ = ("raw", "lit", "line", "subs")

    def __init__(self, raw, lit, line, subs):
        self.raw, self.lit, self.line, self.subs = raw, lit, line, subs

    def text(self):
        return self.lit if self.lit is not None else self.raw


class Node:
    """An AST node; its kind and fields:
    seq: items (andor nodes)
    andor: parts (pipe nodes), ops ('&&'/'||'), op_lines (each operator's
        line), bg (ended by &), text (its source on one line)
    pipe: cmds, neg (! before it)
    simple: words, assigns (the NAME=value words before the command)
    subshell, group: body; coproc: body (a command)
    if: clauses [(condition seq, body seq)], els (seq or None)
    loop: kw ('while'/'until'), cond, body; for: var (None in a
        (( )) loop), words, body
    case: word, arms (a seq each); func: name, body (a command)
    arith: text ((( ))); cond: words ([[ ]])
    redir: op, target (a Word)
    Every command node has redirs."""

    def __init__(self, kind, line, **kw):
        self.kind = kind
        self.line = line
        self.redirs = []
        self.__dict__.update(kw)


OPS = (";;&", ";;", ";&", "&&", "||", "|&", "&>>", "&>", ">>", "<<<", "<<-",
       "<<", "<>", "<&", ">&", ">|", ";", "&", "|", "(", ")", "<", ">")
REDIR_OPS = {"<", ">", ">>", "<<", "<<-", "<<<", "<>", "<&", ">&", ">|",
             "&>", "&>>"}
LIST_END_OPS = {")", ";;", ";&", ";;&"}
# reserved words, recognised only where a command starts
KW_RE = re.compile(r"(if|then|elif|else|fi|do|done|case|esac|while|until|for"
                   r"|select|function|time|coproc|in|\}|\[\[)(?=[\s;&|()<>]|$)"
                   r"|([{!])(?=[\s]|$)")
ASSIGN_RE = re.compile(r"[A-Za-z_]\w*(\[[^]]*\])?\+?=")
NAME_RE = re.compile(r"[A-Za-z_]\w*|\d")
ENDERS = {"then", "elif", "else", "fi", "do", "done", "esac", "}"}


class Parser:
    """A recursive-descent parser of bash, straight on the characters (the
    shell's tokens depend on where they are). parse_all() returns the
    file's seq node or raises ParseError."""

    def __init__(self, src, line_base=0):
        self.s = src
        self.n = len(src)
        self.i = 0
        self.nls = [k for k, c in enumerate(src) if c == "\n"]
        self.line_base = line_base
        self.heredocs = []          # (delimiter, strip tabs) begun on this line

    # -- low level
    def line(self, pos=None):
        return bisect.bisect_left(self.nls, self.i if pos is None else pos) \
            + 1 + self.line_base

    def error(self, msg):
        raise ParseError(self.line(), msg)

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < self.n else ""

    def at(self, text):
        return self.s.startswith(text, self.i)

    def op(self, pos=None):
        """The operator at pos (default: the cursor), or None."""
        p = self.i if pos is None else pos
        if self.s.startswith("<(", p) or self.s.startswith(">(", p):
            return None                 # process substitution: a word
        for o in OPS:
            if self.s.startswith(o, p):
                return o
        return None

    def keyword(self):
        m = KW_RE.match(self.s, self.i)
        return (m.group(1) or m.group(2)) if m else None

    def skip_blanks(self):
        """Spaces, tabs, line continuations and a comment up to its newline."""
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c in " \t\r":
                self.i += 1
            elif c == "\\" and self.peek(1) == "\n":
                self.i += 2
            elif c == "#":
                j = s.find("\n", self.i)
                self.i = self.n if j < 0 else j
            else:
                break

    def newline(self):
        """Consume a newline, then the bodies of the here-documents begun
        on its line (they are skipped, not parsed)."""
        self.i += 1
        pending, self.heredocs = self.heredocs, []
        for delim, strip in pending:
            while self.i < self.n:
                j = self.s.find("\n", self.i)
                end = self.n if j < 0 else j
                text = self.s[self.i:end]
                self.i = self.n if j < 0 else j + 1
                if (text.lstrip("\t") if strip else text) == delim:
                    break

    def linebreak(self):
        """Blanks, comments and newlines."""
        while True:
            self.skip_blanks()
            if self.peek() == "\n":
                self.newline()
            else:
                return

    def expect_kw(self, kw):
        self.linebreak()
        if self.keyword() != kw:
            self.error("expected '%s'" % kw)
        self.i += len(kw)

    # -- words
    def balanced(self, open_, close):
        """Skip from an open_ at the cursor to its matching close (quotes,
        escapes and comments skipped); the text is not parsed."""
        s = self.s
        depth = 0
        while self.i < self.n:
            c = s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "'" and open_ == "(":
                j = s.find("'", self.i + 1)
                if j < 0:
                    self.error("unterminated quote")
                self.i = j + 1
                continue
            if c == '"':
                self.i += 1
                self.dquoted([], [])
                continue
            if c == "#" and open_ == "(" and s[self.i - 1] in " \t\n":
                j = s.find("\n", self.i)
                self.i = self.n if j < 0 else j
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return
            self.i += 1
        self.error("unterminated '%s'" % open_)

    def sub_list(self):
        """The commands of $( ... ) or <( ... ), the cursor after the '('."""
        body = self.parse_list()
        self.linebreak()
        if self.peek() != ")":
            self.error("expected ')'")
        self.i += 1
        return body

    def backtick(self, subs):
        s = self.s
        j = self.i + 1
        buf = []
        while j < self.n and s[j] != "`":
            if s[j] == "\\" and j + 1 < self.n and s[j + 1] in "`$\\":
                buf.append(s[j + 1])
                j += 2
                continue
            buf.append(s[j])
            j += 1
        if j >= self.n:
            self.error("unterminated backquote")
        subs.append(Parser("".join(buf), self.line() - 1).parse_all())
        self.i = j + 1

    def dollar(self, subs, in_dq):
        """An expansion at a '$'; False if the '$' is a literal one."""
        n1 = self.peek(1)
        if n1 == "(":
            if self.peek(2) == "(":     # $(( arithmetic ))
                self.i += 1
                self.balanced("(", ")")
            else:
                self.i += 2
                subs.append(self.sub_list())
        elif n1 == "{":
            self.i += 1
            self.balanced("{", "}")
        elif n1 == "'" and not in_dq:   # $'...'
            j = self.i + 2
            while j < self.n and self.s[j] != "'":
                j += 2 if self.s[j] == "\\" else 1
            self.i = j + 1
        elif n1 == '"' and not in_dq:   # $"..."
            self.i += 2
            self.dquoted([], subs)
        elif n1 and (n1.isalnum() or n1 == "_"):
            self.i = NAME_RE.match(self.s, self.i + 1).end()
        elif n1 and n1 in "?#$!@*-":
            self.i += 2
        else:
            return False
        return True

    def dquoted(self, lit, subs):
        """The inside of "...", the cursor after the opening quote; returns
        whether it had no expansion."""
        s = self.s
        plain = True
        while self.i < self.n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return plain
            if c == "\\":
                nx = self.peek(1)
                if nx == "\n":
                    self.i += 2
                    continue
                if nx in '$`"\\':
                    lit.append(nx)
                    self.i += 2
                    continue
            if c == "$":
                if self.dollar(subs, True):
                    plain = False
                    continue
            if c == "`":
                self.backtick(subs)
                plain = False
                continue
            lit.append(c)
            self.i += 1
        self.error("unterminated double quote")

    def word(self):
        """One word at the cursor, or None."""
        s = self.s
        start = self.i
        line = self.line()
        lit = []
        plain = True
        subs = []
        while self.i < self.n:
            c = s[self.i]
            if c in " \t\r\n;&|":
                break
            if c in "<>":
                if self.peek(1) == "(":          # <( ... ) >( ... )
                    self.i += 2
                    subs.append(self.sub_list())
                    plain = False
                    continue
                break
            if c in "()":
                if c == "(" and (
                        (self.i > start and s[self.i - 1] in "@!+*?")
                        or ASSIGN_RE.fullmatch(s, start, self.i)):
                    self.balanced("(", ")")      # extglob, or a=( ... )
                    plain = False
                    continue
                break
            if c == "\\":
                if self.peek(1) == "\n":
                    self.i += 2
                    continue
                lit.append(self.peek(1))
                self.i += 2
                continue
            if c == "'":
                j = s.find("'", self.i + 1)
                if j < 0:
                    self.error("unterminated quote")
                lit.append(s[self.i + 1:j])
                self.i = j + 1
                continue
            if c == '"':
                self.i += 1
                if not self.dquoted(lit, subs):
                    plain = False
                continue
            if c == "$":
                if self.dollar(subs, False):
                    plain = False
                    continue
            if c == "`":
                self.backtick(subs)
                plain = False
                continue
            lit.append(c)
            self.i += 1
        if self.i == start:
            return None
        return Word(s[start:self.i], "".join(lit) if plain else None, line, subs)

    # -- grammar
    def parse_all(self):
        body = self.parse_list()
        self.linebreak()
        if self.i < self.n:
            self.error("unexpected '%s'" % self.peek())
        return body

    def parse_list(self, terms=frozenset()):
        """and-or lists separated by ; & or newlines, up to one of the
        reserved words terms, a ')' or ';;', or the end."""
        items = []
        line = self.line()
        while True:
            self.linebreak()
            if self.i >= self.n or self.op() in LIST_END_OPS:
                break
            kw = self.keyword()
            if kw in terms:
                break
            start = self.i
            ao = self.parse_andor()
            if self.i == start:
                self.error("unexpected '%s'" % self.peek())
            items.append(ao)
            self.skip_blanks()
            o = self.op()
            if o in (";", "&"):
                self.i += 1
                ao.bg = o == "&"
            elif self.peek() == "\n":
                self.newline()
        return Node("seq", line, items=items)

    def parse_andor(self):
        line = self.line()
        start = self.i
        parts = [self.parse_pipeline()]
        ops = []
        op_lines = []
        while True:
            self.skip_blanks()
            o = self.op()
            if o not in ("&&", "||"):
                break
            op_lines.append(self.line())
            self.i += 2
            ops.append(o)
            self.linebreak()
            parts.append(self.parse_pipeline())
        text = one_line(self.s[start:self.i])
        return Node("andor", line, parts=parts, ops=ops, op_lines=op_lines,
                    bg=False, text=text)

    def parse_pipeline(self):
        self.skip_blanks()
        line = self.line()
        neg = False
        while True:
            kw = self.keyword()
            if kw == "!":
                neg = not neg
                self.i += 1
            elif kw == "time":
                self.i += 4
                self.skip_blanks()
                if self.at("-p ") or self.at("-p\t"):
                    self.i += 2
            else:
                break
            self.skip_blanks()
        cmds = [self.parse_command()]
        while True:
            self.skip_blanks()
            o = self.op()
            if o not in ("|", "|&"):
                break
            self.i += len(o)
            self.linebreak()
            cmds.append(self.parse_command())
        return Node("pipe", line, cmds=cmds, neg=neg)

    def parse_command(self):
        self.skip_blanks()
        line = self.line()
        kw = self.keyword()
        if kw in ENDERS:
            self.error("unexpected '%s'" % kw)
        if kw == "if":
            node = self.parse_if()
        elif kw in ("while", "until"):
            self.i += len(kw)
            cond = self.parse_list({"do"})
            self.expect_kw("do")
            body = self.parse_list({"done"})
            self.expect_kw("done")
            node = Node("loop", line, kw=kw, cond=cond, body=body)
        elif kw in ("for", "select"):
            node = self.parse_for(kw)
        elif kw == "case":
            node = self.parse_case()
        elif kw == "{":
            self.i += 1
            body = self.parse_list({"}"})
            self.expect_kw("}")
            node = Node("group", line, body=body)
        elif kw == "[[":
            node = self.parse_cond()
        elif kw == "function":
            self.i += len(kw)
            self.skip_blanks()
            name = self.word()
            self.skip_blanks()
            if self.peek() == "(":
                self.i += 1
                self.skip_blanks()
                if self.peek() != ")":
                    self.error("expected ')'")
                self.i += 1
            self.linebreak()
            return Node("func", line, name=name.text(), body=self.parse_command())
        elif kw == "coproc":
            # coproc [NAME] COMMAND: a NAME only before a compound command
            self.i += len(kw)
            self.skip_blanks()
            m = re.compile(r"[A-Za-z_]\w*[ \t]+(?=[{(]|(if|while|until|for|case)\s)"
                           ).match(self.s, self.i)
            if m:
                self.i = m.end()
            return Node("coproc", line, body=self.parse_command())
        elif self.at("(("):
            start = self.i
            self.balanced("(", ")")
            node = Node("arith", line, text=self.s[start:self.i])
        elif self.peek() == "(":
            self.i += 1
            node = Node("subshell", line, body=self.sub_list())
        else:
            return self.parse_simple()
        node.redirs = self.parse_redirs()
        return node

    def parse_if(self):
        line = self.line()
        self.i += 2
        clauses = []
        cond = self.parse_list({"then"})
        self.expect_kw("then")
        clauses.append((cond, self.parse_list({"elif", "else", "fi"})))
        els = None
        while True:
            self.linebreak()
            kw = self.keyword()
            if kw == "elif":
                self.i += 4
                cond = self.parse_list({"then"})
                self.expect_kw("then")
                clauses.append((cond, self.parse_list({"elif", "else", "fi"})))
            elif kw == "else":
                self.i += 4
                els = self.parse_list({"fi"})
                self.expect_kw("fi")
                break
            elif kw == "fi":
                self.i += 2
                break
            else:
                self.error("expected 'fi'")
        return Node("if", line, clauses=clauses, els=els)

    def parse_for(self, kw):
        line = self.line()
        self.i += len(kw)
        self.skip_blanks()
        words = []
        var = None
        if self.at("(("):
            self.balanced("(", ")")
        else:
            w = self.word()
            if w is None:
                self.error("expected a name after '%s'" % kw)
            var = w.text()
            self.linebreak()
            if self.keyword() == "in":
                self.i += 2
                while True:
                    self.skip_blanks()
                    if self.peek() in ("\n", ";", ""):
                        break
                    w = self.word()
                    if w is None:
                        self.error("unexpected '%s'" % self.peek())
                    words.append(w)
        self.skip_blanks()
        if self.peek() == ";":
            self.i += 1
        self.expect_kw("do")
        body = self.parse_list({"done"})
        self.expect_kw("done")
        return Node("for", line, var=var, words=words, body=body)

    def parse_case(self):
        line = self.line()
        self.i += 4
        self.skip_blanks()
        subject = self.word()
        self.expect_kw("in")
        arms = []
        while True:
            self.linebreak()
            if self.keyword() == "esac":
                self.i += 4
                break
            if self.peek() == "(":
                self.i += 1
            while True:                         # PATTERN [| PATTERN]... )
                self.skip_blanks()
                if self.word() is None:
                    self.error("expected a case pattern")
                self.skip_blanks()
                if self.peek() == "|":
                    self.i += 1
                elif self.peek() == ")":
                    self.i += 1
                    break
                else:
                    self.error("expected ')' after a case pattern")
            arms.append(self.parse_list({"esac"}))
            self.skip_blanks()
            o = self.op()
            if o in (";;", ";&", ";;&"):
                self.i += len(o)
        return Node("case", line, word=subject, arms=arms)

    def parse_cond(self):
        """[[ ... ]]: its words (operators inside are plain tokens)."""
        line = self.line()
        self.i += 2
        words = []
        while True:
            self.skip_blanks()
            if self.i >= self.n:
                self.error("unterminated '[['")
            if self.peek() == "\n":
                self.newline()
                continue
            if self.at("]]") and (self.i + 2 >= self.n or
                                  self.s[self.i + 2] in " \t\n;&|)"):
                self.i += 2
                break
            w = self.word()
            if w is None:
                self.i += 1                     # ( ) < > && || ! and the like
            else:
                words.append(w)
        return Node("cond", line, words=words)

    def parse_redirs(self):
        out = []
        while True:
            self.skip_blanks()
            if self.op() in REDIR_OPS:
                out.append(self.parse_redir())
                continue
            m = re.compile(r"\d+").match(self.s, self.i)
            if m and self.op(m.end()) in REDIR_OPS:
                self.i = m.end()
                out.append(self.parse_redir())
                continue
            return out

    def parse_redir(self):
        o = self.op()
        self.i += len(o)
        self.skip_blanks()
        target = self.word()
        if target is None:
            self.error("missing redirection target after '%s'" % o)
        if o in ("<<", "<<-"):
            delim = target.lit
            if delim is None:
                delim = re.sub(r"[\"'\\]", "", target.raw)
            self.heredocs.append((delim, o == "<<-"))
        return Node("redir", target.line, op=o, target=target)

    def parse_simple(self):
        line = self.line()
        words, assigns, redirs = [], [], []
        while True:
            self.skip_blanks()
            if self.i >= self.n or self.peek() == "\n":
                break
            o = self.op()
            if o in REDIR_OPS:
                redirs.append(self.parse_redir())
                continue
            if o == "(" and len(words) == 1 and not assigns and not redirs:
                # NAME () BODY: a function definition
                self.i += 1
                self.skip_blanks()
                if self.peek() != ")":
                    self.error("expected ')'")
                self.i += 1
                self.linebreak()
                return Node("func", line, name=words[0].text(),
                            body=self.parse_command())
            if o:
                break
            w = self.word()
            if w is None:
                self.error("unexpected '%s'" % self.peek())
            if re.fullmatch(r"\d+|\{\w+\}", w.raw) and self.op() in REDIR_OPS:
                redirs.append(self.parse_redir())    # 2>&1, {fd}>file
                continue
            if not words and ASSIGN_RE.match(w.raw):
                assigns.append(w)
            else:
                words.append(w)
        return Node("simple", line, words=words, assigns=assigns, redirs=redirs)


def one_line(src):
    """Source text on one line: comments, continuations and newlines out."""
    out = []
    quote = None
    k = 0
    while k < len(src):
        c = src[k]
        if quote:
            if c == "\\" and quote == '"':
                out.append(src[k:k + 2])
                k += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "\\":
            out.append(" " if src[k + 1:k + 2] == "\n" else src[k:k + 2])
            k += 2
            continue
        elif c == "#" and (not out or out[-1] in " \t\n"):
            while k < len(src) and src[k] != "\n":
                k += 1
            continue
        out.append(c)
        k += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


def parse(src):
    return Parser(src).parse_all()


# ---- AST helpers --------------------------------------------------------

def walk_nodes(node, prune_funcs=False):
    """Every node below node (command substitutions included; not the
    bodies of the function definitions in it if prune_funcs)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Word):
            stack.extend(n.subs)
            continue
        yield n
        if prune_funcs and n.kind == "func":
            continue
        for key in ("items", "parts", "cmds", "words", "assigns", "redirs",
                    "arms"):
            stack.extend(getattr(n, key, ()) or ())
        for key in ("body", "cond", "els", "target"):
            v = getattr(n, key, None)
            if v is not None:
                stack.append(v)
        for c, b in getattr(n, "clauses", ()):
            stack.extend((c, b))


def simple_words(node):
    """command_words() of a simple command, or None (not simple, or no
    command name)"""
    if node.kind != "simple":
        return None
    return command_words(node) or None


def command_words(node):
    """A simple command's words from its command name on, past wrappers
    such as env, command, timeout DURATION."""
    ws = node.words
    k = 0
    while k < len(ws) and ws[k].lit in WRAPPERS:
        name = ws[k].lit
        k += 1
        while k < len(ws):
            a = ws[k].text()
            if name == "env" and ASSIGN_RE.match(a):
                k += 1
            elif a.startswith("-"):
                k += 2 if name == "timeout" and a in ("-s", "-k") else 1
            else:
                break
        if name == "timeout":
            k += 1                      # the duration
    return ws[k:]


def cmd_name(node):
    ws = command_words(node) if node.kind == "simple" else []
    return ws[0].lit if ws else None


def is_set_e(node):
    """A `set` that turns errexit on (True), off (False), or neither (None)."""
    if node.kind != "simple" or cmd_name(node) != "set":
        return None
    args = [w.text() for w in command_words(node)[1:]]
    state = None
    for k, a in enumerate(args):
        if a == "--":
            break
        if re.fullmatch(r"[-+][a-zA-Z]*e[a-zA-Z]*", a):
            state = a[0] == "-"
        if a in ("-o", "+o") and k + 1 < len(args) and args[k + 1] == "errexit":
            state = a == "-o"
    return state


def statement_cmd(ao):
    """The one command of an and-or list made of one plain command."""
    if ao.ops or len(ao.parts[0].cmds) != 1 or ao.parts[0].neg:
        return None
    return ao.parts[0].cmds[0]


def grep_quiet(args):
    skip = False
    for w in args:
        if skip:
            skip = False
            continue
        a = w.lit
        if a is None:
            continue
        if a == "--":
            break
        if a in ("--quiet", "--silent"):
            return True
        if a.startswith("--") or not a.startswith("-") or a == "-":
            continue
        for k, ch in enumerate(a[1:]):
            if ch == "q":
                return True
            if ch in "efmABCdD":        # takes an argument: the rest, or the next word
                skip = k == len(a) - 2
                break
    return False


class FileInfo:
    """What the rules need to know about one file."""

    def __init__(self, path, tree):
        self.path = path
        self.tree = tree
        self.funcs = {}
        self.checker_vars = set()
        self.sete_anywhere = False
        self.pipefail = False
        self.inherit_errexit = False
        self.sources = set()            # basenames of the files it sources
        self.source_words = []          # the words naming them (source_paths)
        for n in walk_nodes(tree):
            if n.kind == "func":
                self.funcs[n.name] = n
            elif n.kind == "simple":
                if is_set_e(n):
                    self.sete_anywhere = True
                name = cmd_name(n)
                if name == "set" and any(w.lit == "pipefail" for w in n.words):
                    self.pipefail = True
                if name == "shopt" and any(w.lit == "inherit_errexit"
                                           for w in n.words):
                    self.inherit_errexit = True
                if name in (".", "source") and len(n.words) > 1:
                    self.sources.add(os.path.basename(n.words[1].text()))
                    self.source_words.append(n.words[1].raw)
                assigns = list(n.assigns)
                if name in ("local", "declare", "typeset", "export", "readonly"):
                    assigns += n.words[1:]
                for w in assigns:
                    m = ASSIGN_RE.match(w.raw)
                    if m and CHECKER_RE.search(w.raw[m.end():]):
                        self.checker_vars.add(re.match(r"\w+", w.raw).group())
            elif n.kind == "for" and n.var:
                # for f in DIR/*.sh; do . "$f"; done: the files the loop names
                ref = {"$" + n.var, "${%s}" % n.var}
                if any(c.kind == "simple" and cmd_name(c) in (".", "source")
                       and len(c.words) > 1 and c.words[1].raw.strip('"') in ref
                       for c in walk_nodes(n.body)):
                    self.source_words += [w.raw for w in n.words]
        self.imported = {}             # function name -> FileInfo of a sourced file
        self.predicates = set()
        self._find_predicates()
        self.sensitive_memo = {}
        self.checkfunc_memo = {}

    def owner(self, name):
        """The FileInfo defining function name: this file's, or that of a
        file it sources (among those linted); None if neither."""
        if name in self.funcs:
            return self
        return self.imported.get(name)

    # -- command classes
    def is_checker(self, ws):
        first = ws[0].raw
        m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", first)
        if m and m.group(1) in self.checker_vars:
            return True
        if CHECKER_RE.search(os.path.basename(ws[0].text())):
            return True
        if re.search(r"(^|/)python[0-9.]*$", ws[0].text()) or first in ("$PY", "${PY}"):
            for w in ws[1:]:
                t = w.text()
                if t.startswith("-"):
                    continue
                return bool(CHECKER_RE.search(os.path.basename(t)))
        return False

    def is_verdict(self, node):
        """cmp, diff, grep -q, a checker (true-on-verdict)."""
        ws = simple_words(node)
        if ws is None:
            return False
        name = ws[0].lit
        if name in VERDICT_COMMANDS:
            return True
        if name in GREP_NAMES:
            return grep_quiet(ws[1:])
        return self.is_checker(ws)

    def is_test(self, node):
        """A command whose status is an assertion (mid-and-chain)."""
        if node.kind in ("cond", "arith"):
            return True
        ws = simple_words(node)
        if ws is None:
            return False
        name = ws[0].lit
        if name in TEST_COMMANDS:
            return True
        owner = self.owner(name)
        if owner is not None and name in owner.predicates:
            return True
        if name in GREP_NAMES:
            return grep_quiet(ws[1:])
        if name == "kill" and len(ws) > 1 and ws[1].lit == "-0":
            return True
        return self.is_checker(ws)

    def pipe_is_condition(self, p):
        """A test run for its answer only: is_test less cmp, diff and the
        checkers, which are also run for what they print."""
        c = p.cmds[-1]
        if c.kind == "simple" and command_words(c):
            ws = command_words(c)
            if ws[0].lit in VERDICT_COMMANDS or self.is_checker(ws):
                return False
        return self.pipe_is_test(p)

    def pipe_is_test(self, p):
        return p.neg or self.is_test(p.cmds[-1])

    def andor_is_test(self, ao):
        return all(o == "&&" for o in ao.ops) and self.pipe_is_test(ao.parts[-1])

    def _find_predicates(self):
        """Functions whose body is one test-like statement (err_is,
        differ, no_sanitizer in tests/unit/check.sh)."""
        changed = True
        while changed:
            changed = False
            for name, f in self.funcs.items():
                body = f.body
                if name in self.predicates or body.kind not in ("group", "subshell"):
                    continue
                items = body.body.items
                if len(items) == 1 and self.andor_is_test(items[0]):
                    self.predicates.add(name)
                    changed = True

    # -- set -e sensitivity of functions (SC2310/SC2311 filter)
    def func_sensitive(self, name):
        """Whether set -e off inside function name (it is called in a
        condition or a $( )) lets a check in it pass unseen: a statement
        that is an assertion (its last command a test, or a call to a
        check function) before the function's last one, or in a loop, in
        the function or in a sensitive function it calls."""
        if name not in self.sensitive_memo:
            self.sensitive_memo[name] = False       # recursion: assume not
            self.sensitive_memo[name] = self.cmd_sensitive(self.funcs[name].body)
        return self.sensitive_memo[name]

    def seq_sensitive(self, seq, loop=False):
        items = [a for a in seq.items if not a.bg]
        for k, ao in enumerate(items):
            final = k == len(items) - 1 and not loop
            if not final and self.andor_asserts(ao):
                return True
            for p in ao.parts:
                for c in p.cmds:
                    if self.cmd_sensitive(c):
                        return True
        return False

    def cmd_sensitive(self, c):
        k = c.kind
        if k in ("group", "subshell"):
            return self.seq_sensitive(c.body)
        if k == "if":
            return any(self.seq_sensitive(b) for _, b in c.clauses) or \
                (c.els is not None and self.seq_sensitive(c.els))
        if k in ("loop", "for"):
            return self.seq_sensitive(c.body, loop=True)
        if k == "case":
            return any(self.seq_sensitive(a) for a in c.arms)
        if k == "simple":
            owner = self.owner(cmd_name(c))
            return owner is not None and owner.func_sensitive(cmd_name(c))
        return False

    def andor_asserts(self, ao):
        """A statement that is a check set -e is meant to act on: its last
        command is a test or a call to a check function (`X || return 1`
        and the like handle their failure themselves)."""
        p = ao.parts[-1]
        if p.neg:
            return False        # `! cmd` never stops set -e anyway (SC2251)
        c = p.cmds[-1]
        if self.is_test(c):
            return True
        owner = self.owner(cmd_name(c))
        return owner is not None and owner.is_check_func(cmd_name(c))

    def fails(self, p):
        """A pipeline that ends in a failure on purpose: false, return N,
        exit N (N not 0), a function with such an exit or return, or a
        { } group ending in one."""
        if p.neg:
            return False
        c = p.cmds[-1]
        if c.kind == "group":
            items = c.body.items
            return bool(items) and self.fails(items[-1].parts[-1])
        ws = simple_words(c)
        if ws is None:
            return False
        name = ws[0].lit
        if name == "false":
            return True
        if name in ("return", "exit"):
            return len(ws) > 1 and ws[1].text() != "0"
        owner = self.owner(name)
        return owner is not None and owner.is_check_func(name)

    def is_check_func(self, name):
        """A function whose status is a verdict: it ends with a test, or
        returns or exits with a status other than a literal 0."""
        if name not in self.checkfunc_memo:
            self.checkfunc_memo[name] = False
            body = self.funcs[name].body
            items = body.body.items if body.kind in ("group", "subshell") else []
            verdict = bool(items) and self.andor_is_test(items[-1])
            if not verdict:
                for n in walk_nodes(body, prune_funcs=True):
                    if n.kind == "simple" and cmd_name(n) in ("return", "exit"):
                        args = [w.text() for w in command_words(n)[1:]]
                        if args and args[0] != "0":
                            verdict = True
                            break
            self.checkfunc_memo[name] = verdict
        return self.checkfunc_memo[name]


# ---- the rules ----------------------------------------------------------

class Ctx:
    """Where a command is: under set -e (sete), in a condition-like
    context (cond, why: which), in a command substitution (comsub), in a
    subshell already reported as setsubshell-in-if (reported)."""
    __slots__ = ("sete", "cond", "comsub", "why", "reported")

    def __init__(self, sete=False, cond=False, comsub=False, why="",
                 reported=False):
        self.sete, self.cond, self.comsub = sete, cond, comsub
        self.why, self.reported = why, reported

    def but(self, **kw):
        c = Ctx(self.sete, self.cond, self.comsub, self.why, self.reported)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


def snippet(text, limit=70):
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Checker:
    """The patterns of one file: walks its tree with a Ctx; the status of
    a command in tail position is its function's, subshell's or file's."""

    def __init__(self, info, funcs_sete, pipefail=False):
        self.info = info
        self.pipefail = pipefail        # the file runs under pipefail
        self.funcs_sete = funcs_sete    # functions here run under set -e
        self.findings = []              # (line, pattern, explanation)
        self.callsites = {}             # (line, function) -> under set -e
        self.sete_lines = set()         # lines of commands run under set -e
        self.shorthand_ifs = {}         # line -> [(B, C) of an A && B || C]

    def report(self, line, pattern, text):
        self.findings.append((line, pattern, text))

    def seq(self, seq, ctx, tail):
        ctx = ctx.but()
        items = seq.items
        for k, ao in enumerate(items):
            cmd = statement_cmd(ao)
            if cmd is not None and is_set_e(cmd) is not None and not ao.bg:
                ctx.sete = is_set_e(cmd)
            self.andor(ao, ctx, tail and k == len(items) - 1 and not ao.bg)

    def andor(self, ao, ctx, tail):
        info = self.info
        parts, ops = ao.parts, ao.ops
        for k in range(1, len(ops)):
            if ops[k - 1] == "&&" and ops[k] == "||":
                self.shorthand_ifs.setdefault(ao.line, []).append(
                    (parts[k], parts[k + 1]))
        # check-and: a helper call followed by && or ||
        for k, op in enumerate(ops):
            p = parts[k]
            c = p.cmds[-1]
            if len(p.cmds) == 1 and c.kind == "simple" and cmd_name(c) in CHECK_HELPERS:
                name = cmd_name(c)
                if op == "&&":
                    hint = ("; it runs outside the helper and its verdict is "
                            "thrown away: put it in the checked command (a "
                            "function, or sh -c '...')")
                else:
                    hint = ("; it runs on the helper's own status: to act on "
                            "a failed check write `if ! %s ...; then ...; fi`"
                            % name)
                self.report(ao.op_lines[k], "check-and",
                            EXPLAIN["check-and"] % (name, op, op, hint))
        # true-on-verdict: VERDICT || true
        for k, op in enumerate(ops):
            nxt = parts[k + 1]
            if op != "||" or nxt.neg or len(nxt.cmds) != 1:
                continue
            t = nxt.cmds[0]
            if t.kind != "simple" or len(t.words) != 1 or t.words[0].lit not in ("true", ":"):
                continue
            p = parts[k]
            c = p.cmds[-1]
            if p.neg or not info.is_verdict(c):
                continue
            name = cmd_name(c)
            if name in ("diff", "cmp") and (ctx.comsub or len(p.cmds) > 1 or any(
                    r.op in (">", ">>", "&>", ">|") for r in c.redirs)):
                continue                # its output is what is wanted
            ws = command_words(c)
            what = ws[0].raw
            if info.is_checker(ws) and not CHECKER_RE.search(ws[0].text()):
                # python3 [-S] .../checkx.py: name the checker
                what += " " + next((os.path.basename(w.text()) for w in ws[1:]
                                    if CHECKER_RE.search(w.text())), "")
                what = what.strip()
            self.report(c.line, "true-on-verdict", EXPLAIN["true-on-verdict"] % (
                what + (" -q" if name in GREP_NAMES else "") + " ...",
                t.words[0].lit, what, t.words[0].lit))
        # early-reader: under pipefail, a pipeline's later command that
        # stops reading early
        if self.pipefail:
            for p in parts:
                for c in p.cmds[1:]:
                    how = early_reader(c)
                    if how:
                        self.report(c.line, "early-reader",
                                    EXPLAIN["early-reader"] % how)
        # mid-and-chain
        if (ctx.sete and not ctx.cond and not tail and not ao.bg
                and not (ctx.comsub and not info.inherit_errexit)
                and ops and all(o == "&&" for o in ops)
                and info.pipe_is_test(parts[-1])):
            self.report(ao.line, "mid-and-chain",
                        EXPLAIN["mid-and-chain"] % snippet(ao.text))
        # the parts: all but the last are in a condition-like context
        for k, p in enumerate(parts):
            last = k == len(parts) - 1
            cond = ctx.cond or not last or p.neg
            why = ctx.why
            if not ctx.cond:
                why = "a `!` pipeline" if p.neg else (
                    "an && / || list it is not the last command of" if not last else "")
            pctx = ctx.but(cond=cond, why=why)
            for j, c in enumerate(p.cmds):
                self.command(c, pctx, tail and last and len(p.cmds) == 1)

    def words(self, words, ctx):
        for w in words:
            for sub in w.subs:
                self.seq(sub, ctx.but(comsub=True, cond=False), tail=True)

    def command(self, c, ctx, tail):
        k = c.kind
        for r in c.redirs:
            self.words([r.target], ctx)
        if k == "simple":
            if ctx.sete and not (ctx.comsub and not self.info.inherit_errexit):
                self.sete_lines.add(c.line)
            self.words(c.assigns, ctx)
            self.words(c.words, ctx)
            name = cmd_name(c)
            if self.info.owner(name) is not None:
                # SC2310/SC2311 matter where set -e is meant to be on; not
                # inside a subshell that setsubshell-in-if reports already
                self.callsites.setdefault((c.line, name),
                                          ctx.sete and not ctx.reported)
        elif k == "cond":
            self.words(c.words, ctx)
        elif k == "subshell":
            sets = [statement_cmd(a) for a in c.body.items]
            if ctx.cond and any(s is not None and is_set_e(s) for s in sets):
                self.report(c.line, "setsubshell-in-if",
                            EXPLAIN["setsubshell-in-if"] % ctx.why)
                ctx = ctx.but(reported=True)
            self.seq(c.body, ctx, tail=True)
        elif k == "group":
            self.seq(c.body, ctx, tail)
        elif k == "if":
            for cond, body in c.clauses:
                self.seq(cond, ctx.but(cond=True, why="an if condition"), tail=False)
                self.seq(body, ctx, tail)
            if c.els is not None:
                self.seq(c.els, ctx, tail)
        elif k == "loop":
            self.seq(c.cond, ctx.but(cond=True, why="a %s condition" % c.kw), tail=False)
            self.seq(c.body, ctx, tail=False)
        elif k == "for":
            self.words(c.words, ctx)
            self.seq(c.body, ctx, tail=False)
        elif k == "case":
            self.words([c.word], ctx)
            for arm in c.arms:
                self.seq(arm, ctx, tail)
        elif k == "coproc":
            self.command(c.body, ctx.but(cond=False), tail=True)
        elif k == "func":
            sete = c.name in self.funcs_sete
            self.command(c.body, Ctx(sete=sete), tail=True)


# ---- driver -------------------------------------------------------------

def shebang_sete(src):
    first = src.split("\n", 1)[0]
    return bool(re.match(r"#!\S*(bash|sh)\s+-\w*e", first))


def source_paths(path, words):
    """The files the words (sourced by path: `. WORD`, or the list of a
    for loop whose variable is sourced) name, as real paths: quotes
    removed, a leading $VAR/ taken as path's own directory (HERE=$(dirname
    "$0") and the like), a name without one relative to it, globs
    expanded. Words that name no file this way name none."""
    here = os.path.dirname(os.path.abspath(path))
    out = []
    for raw in words:
        w = raw.replace('"', "").replace("'", "")
        w = re.sub(r"^\$(\{\w+\}|\w+)/", "", w) if w.startswith("$") else w
        if "$" in w or "`" in w:
            continue
        for f in sorted(glob.glob(os.path.join(here, w))):
            out.append(os.path.realpath(f))
    return out


def lint(paths, shellcheck_json=None):
    """Findings for paths: a list of (path, line, pattern, text)."""
    out = []
    infos = {}
    srcs = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read()
        srcs[path] = src
        try:
            tree = parse(src)
        except ParseError as e:
            out.append((path, e.line, "parse-error",
                        "cannot parse (%s): nothing in this file was checked" % e.msg))
            continue
        info = FileInfo(path, tree)
        if shebang_sete(src):
            info.sete_anywhere = True
        infos[path] = info
    # functions of files sourced by a set -e file run under set -e too
    sourced_sete = set()
    by_base = {}
    for info in infos.values():
        by_base.setdefault(os.path.basename(info.path), info)
        if info.sete_anywhere:
            sourced_sete |= info.sources
    for info in infos.values():
        for base in info.sources:
            other = by_base.get(base)
            if other is not None and other is not info:
                for name in other.funcs:
                    info.imported.setdefault(name, other)
    # and files sourced by a path that names them (tests/vm/guest.sh's
    # lib.sh and cases/*.sh): the file and those it sources by path are
    # one set of functions, each file's calls resolved in all of them
    by_real = {os.path.realpath(p): info for p, info in infos.items()}
    sete_paths = set()
    for path, info in infos.items():
        group = [info]
        for f in source_paths(path, info.source_words):
            other = by_real.get(f)
            if other is not None and other not in group:
                group.append(other)
                if info.sete_anywhere:
                    sete_paths.add(other.path)
        for member in group:
            for other in group:
                if other is not member:
                    for name in other.funcs:
                        member.imported.setdefault(name, other)
    # pipefail: a file that sets it, and those it sources by a path
    pf_paths = set()
    for path, info in infos.items():
        if info.pipefail:
            pf_paths.add(path)
            for f in source_paths(path, info.source_words):
                other = by_real.get(f)
                if other is not None:
                    pf_paths.add(other.path)
    checkers = {}
    for path, info in infos.items():
        under = info.sete_anywhere or os.path.basename(path) in sourced_sete \
            or path in sete_paths
        ck = Checker(info, set(info.funcs) if under else set(),
                     pipefail=path in pf_paths)
        ck.seq(info.tree, Ctx(sete=shebang_sete(srcs[path])), tail=True)
        checkers[path] = ck
        for line, pattern, text in ck.findings:
            out.append((path, line, pattern, text))
    if shellcheck_json is not None:
        out += shellcheck_findings(shellcheck_json, infos, srcs, checkers)
    # one finding per place and pattern
    return sorted(set(out), key=lambda f: (f[0], f[1], f[2]))


def never_fails(p):
    """A pipeline that cannot fail: true, :, an assignment without a
    command substitution, break, continue, return, exit."""
    if p.neg or len(p.cmds) != 1 or p.cmds[0].kind != "simple":
        return False
    c = p.cmds[0]
    if not c.words:
        return not any(a.subs for a in c.assigns)
    return c.words[0].lit in ("true", ":", "break", "continue", "return", "exit")


def shellcheck_findings(report, infos, srcs, checkers):
    """shellcheck's json1 comments as findings, less those that do not
    matter for a check (see the module's docstring and run.sh)."""
    out = []
    for c in report.get("comments", []):
        path, line, code = c["file"], c["line"], "SC%d" % c["code"]
        info = infos.get(path)
        ck = checkers.get(path)
        if info is None:
            pass                        # not parsed: parse-error says so
        elif c["code"] in (2310, 2311):
            text = srcs[path].split("\n")[line - 1]
            m = re.compile(r"[\w.:-]+").match(text, c["column"] - 1)
            name = m.group() if m else None
            owner = info.owner(name)
            if owner is None:
                continue
            if not ck.callsites.get((line, name), False):
                continue                # the caller does not run under set -e
            if not owner.func_sensitive(name):
                continue                # one-command predicates and the like
        elif c["code"] in (2155, 2251):
            if line not in ck.sete_lines:
                continue                # masks or skips nothing set -e sees
        elif c["code"] == 2015:
            # A && B || C: when A or B fails, C's status replaces theirs.
            # That hides nothing when B cannot fail (an if-then-else), or
            # when C is `true`/`:` (a failure ignored on purpose;
            # true-on-verdict has the verdicts), a test (a boolean
            # expression), or fails on purpose (return 1, exit 2, usage).
            pairs = ck.shorthand_ifs.get(line, [])
            if pairs and not any(
                    not never_fails(b) and not never_fails(cc)
                    and not info.pipe_is_condition(cc) and not info.fails(cc)
                    for b, cc in pairs):
                continue
        out.append((path, line, code, c["message"]))
    return out


def main(argv):
    sc = None
    codes = None
    args = argv[1:]
    while args[:1] in (["--shellcheck"], ["--codes"]) and len(args) > 1:
        if args[0] == "--codes":
            codes = {int(c.strip().upper().replace("SC", ""))
                     for c in args[1].split(",") if c.strip()}
        else:
            sc = {"comments": []}
            path = args[1]
            reports = sorted(os.path.join(path, n) for n in os.listdir(path)
                             if n.endswith(".json")) if os.path.isdir(path) else [path]
            for r in reports:
                with open(r) as f:
                    text = f.read()
                if text.strip():
                    sc["comments"] += json.loads(text).get("comments", [])
        args = args[2:]
    if sc is not None and codes is not None:
        # the chosen checks, and the parse errors (a file shellcheck cannot
        # parse was not checked)
        sc["comments"] = [c for c in sc["comments"] if c["code"] in codes or
                          (c["code"] < 2000 and c["level"] == "error")]
    if not args or args[0].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    findings = lint(args, sc)
    for path, line, pattern, text in findings:
        print("%s:%d: %s: %s" % (path, line, pattern, text))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
