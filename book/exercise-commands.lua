-- exercise-commands.lua: the shell commands of a chapter's exercises, for
-- book/exercise-run.sh. Run as
--
--   pandoc CHAPTER.md --lua-filter=book/exercise-commands.lua -t native -o /dev/null
--
-- it writes to standard output one line of shell a command,
--
--   run EXERCISE EXPECT 'COMMAND AS SHOWN' 'COMMAND TO RUN'
--
-- each string in single quotes. In the "## Exercises" section (to the next
-- heading of level 1 or 2), in each numbered exercise, in the order they
-- are printed:
--   - a ```sh block is one command, its lines run as one script;
--   - a piece of inline code is a command when it starts with ./ (a program
--     or a test of the project), `make`, `diff` or a Python: `python3 x.py`
--     is listed too, so that the check can refuse it (the book always names
--     /usr/bin/python3, Debian's, the one with PyTorch and NumPy).
-- Attributes on the code say what the check is to expect:
--   `make chapter1`{.fails}         the command must exit with an error
--                                   (a status from 1 to 123);
--   `./chapter9 --steps 2500`{run="./chapter9 --steps 3"}
--                                   the check runs the shorter command given
--                                   instead, in the same place of the
--                                   exercise (for a command that takes
--                                   minutes: training, full data).
-- EXPECT is pass or fails.

local function quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function is_command(text)
  return text:match("^%./") or text:match("^make$") or text:match("^make ")
      or text:match("^diff ") or text:match("^/usr/bin/python3")
      or text:match("^python3? ")
end

local function emit(exercise, el, text, whole)
  local expect = el.classes:includes("fails") and "fails" or "pass"
  local run = el.attributes["run"]
  run = run and run:gsub("%s+", " ") or text
  if not whole and not is_command(text) then return end
  io.write("run ", exercise, " ", expect, " ", quote(text), " ", quote(run), "\n")
end

-- The code of the blocks, in the order a reader meets it.
local function collect(blocks, exercise)
  for _, b in ipairs(blocks) do
    if b.t == "CodeBlock" then
      if b.classes:includes("sh") then emit(exercise, b, b.text, true) end
    elseif b.t == "Para" or b.t == "Plain" then
      pandoc.walk_block(b, {
        Code = function(c)
          emit(exercise, c, (c.text:gsub("%s+", " ")), false)
        end })
    elseif b.t == "OrderedList" or b.t == "BulletList" then
      for _, item in ipairs(b.content) do collect(item, exercise) end
    elseif b.content and type(b.content) == "table" and b.t ~= "Header" then
      collect(b.content, exercise)
    end
  end
end

function Pandoc(doc)
  local inside = false
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" and b.level <= 2 then
      inside = pandoc.utils.stringify(b.content) == "Exercises"
    elseif inside and b.t == "OrderedList" then
      local start = b.listAttributes and b.listAttributes.start or b.start or 1
      for i, item in ipairs(b.content) do collect(item, start + i - 1) end
    elseif inside then
      collect({ b }, 0)
    end
  end
  return doc
end
