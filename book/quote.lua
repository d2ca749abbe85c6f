-- quote.lua: the book quotes code and program output, never copies of them.
--
--   ```{.c snippet="chapter1.c:loop-attention"}
--   ```
-- becomes the lines between `//> loop-attention` and `//< loop-attention` in
-- src/programs/chapter1.c (markers nested inside are dropped, common
-- indentation removed). The file is named by its path under src/
-- ("programs/chapter1.c") or by its name alone when no other file under
-- src/ has that name.
--
--   ```{.output program="chapter1" cells="6-8"}
--   ```
-- becomes the blocks of cells 6 to 8 from build/out/chapter1.txt, the
-- program's captured output, where each cell starts with a line `[N] title`.
-- cells may list numbers and ranges: "2 4-6".
--
--   ```{.python file="tests/reference/chapter4_twin.py"}
--   ```
-- becomes the whole of that file, its path taken from the directory the book
-- is built in: a script the book prints in full, such as a chapter's PyTorch
-- twin.
--
--   # Sentiment on IMDb {chapter=7}
-- numbers that chapter 7, whatever comes before it, so that the book's
-- chapter numbers are the programs' (./chapter7).
--
-- The build fails on a marker, a file, a program output or a cell that is
-- not there, on a file name that two files under src/ share, and on any
-- marker in the files under src/, at any depth, that the book never quotes.

-- Quoted lines longer than these run off the page (code and output are set
-- in \footnotesize, 4.725pt a character, on A4 with 2.5 cm margins, 455pt;
-- the output's frame takes 12pt of that): the build fails. The LaTeX log
-- is checked as well (book/check.sh), for what a count of characters misses.
local max_code_line = 96
local max_output_line = 93

local source_dir = "src"
local output_dir = "build/out"
local used = {}

local function read_file(path)
  local f = io.open(path, "r")
  if not f then error("quote.lua: cannot read " .. path) end
  local text = f:read("a")
  f:close()
  return text
end

local function lines_of(text)
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  if lines[#lines] == "" then lines[#lines] = nil end
  return lines
end

local function escape(s)
  return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0"))
end

local function trim_blank_edges(lines)
  while #lines > 0 and lines[1]:match("^%s*$") do table.remove(lines, 1) end
  while #lines > 0 and lines[#lines]:match("^%s*$") do table.remove(lines) end
  return lines
end

local function dedent(lines)
  local indent
  for _, l in ipairs(lines) do
    if not l:match("^%s*$") then
      local lead = #l:match("^ *")
      if not indent or lead < indent then indent = lead end
    end
  end
  local out = {}
  for i, l in ipairs(lines) do out[i] = l:sub((indent or 0) + 1) end
  return out
end

local function check_widths(text, limit, what)
  for _, l in ipairs(lines_of(text)) do
    if utf8.len(l) and utf8.len(l) > limit then
      error("quote.lua: " .. what .. " has a line of " .. utf8.len(l) ..
            " characters (at most " .. limit .. " fit the page): " .. l)
    end
  end
  return text
end

-- Every .c and .h file under source_dir, at any depth, as paths relative to
-- it ("nn/tensor.c"). Finding none is an error: a check over no files
-- would pass whatever the book quotes.
local source_files
local function sources()
  if source_files then return source_files end
  local listing = io.popen('find "' .. source_dir .. '" -type f \\( -name "*.c" -o -name "*.h" \\) | LC_ALL=C sort')
  source_files = {}
  for path in listing:lines() do
    source_files[#source_files + 1] = path:sub(#source_dir + 2)
  end
  listing:close()
  if #source_files == 0 then error("quote.lua: no .c or .h file under " .. source_dir) end
  return source_files
end

-- The file a snippet names: a path under source_dir, or a name that exactly
-- one file there has.
local function resolve(file)
  local matches = {}
  for _, path in ipairs(sources()) do
    if path == file then return path end
    if path:match("[^/]+$") == file then matches[#matches + 1] = path end
  end
  if #matches == 1 then return matches[1] end
  if #matches == 0 then error("quote.lua: no file " .. file .. " under " .. source_dir) end
  error("quote.lua: " .. file .. " names " .. table.concat(matches, " and ") ..
        " under " .. source_dir .. ": give the path")
end

local function snippet(spec)
  local given, name = spec:match("^([^:]+):(.+)$")
  if not given then error("quote.lua: snippet '" .. spec .. "' is not file.c:name") end
  local file = resolve(given)
  local lines = lines_of(read_file(source_dir .. "/" .. file))
  local open_pat = "^%s*//> " .. escape(name) .. "%s*$"
  local close_pat = "^%s*//< " .. escape(name) .. "%s*$"
  local out, inside, found = {}, false, false
  for _, l in ipairs(lines) do
    if l:match(close_pat) then inside = false; break
    elseif inside then
      if not l:match("^%s*//[<>] ") then out[#out + 1] = l end
    elseif l:match(open_pat) then inside = true; found = true
    end
  end
  if not found then error("quote.lua: no marker '//> " .. name .. "' in " .. source_dir .. "/" .. file) end
  if inside then error("quote.lua: marker '" .. name .. "' in " .. file .. " is never closed") end
  used[file .. ":" .. name] = true
  return table.concat(dedent(trim_blank_edges(out)), "\n")
end

local function wanted_cells(spec)
  local set = {}
  for part in spec:gmatch("[^%s,]+") do
    local a, b = part:match("^(%d+)%-(%d+)$")
    if a then
      for i = tonumber(a), tonumber(b) do set[i] = true end
    elseif part:match("^%d+$") then
      set[tonumber(part)] = true
    else
      error("quote.lua: bad cells '" .. spec .. "'")
    end
  end
  return set
end

local function program_output(program, cells)
  local path = output_dir .. "/" .. program .. ".txt"
  local lines = lines_of(read_file(path))
  if not cells then return table.concat(trim_blank_edges(lines), "\n") end
  local want, seen, out, current = wanted_cells(cells), {}, {}, nil
  for _, l in ipairs(lines) do
    local n = l:match("^%[(%d+)%] ")
    if n then
      current = tonumber(n)
      if want[current] and #out > 0 then out[#out + 1] = "" end
      seen[current] = true
    end
    if current and want[current] then out[#out + 1] = l end
  end
  for n in pairs(want) do
    if not seen[n] then error("quote.lua: " .. path .. " has no cell [" .. n .. "]") end
  end
  -- blank lines that end a cell's block are the program's spacing, not output
  local tidy = {}
  for i, l in ipairs(out) do
    if not (l == "" and (out[i + 1] == nil or out[i + 1] == "")) then tidy[#tidy + 1] = l end
  end
  return table.concat(trim_blank_edges(tidy), "\n")
end

local function output_block(text)
  if FORMAT:match("latex") then
    return pandoc.RawBlock("latex",
      "\\begin{ProgramOutput}\n" .. text .. "\n\\end{ProgramOutput}")
  end
  return pandoc.CodeBlock(text, {class = "output"})
end

function CodeBlock(el)
  local path = el.attributes["file"]
  if path then
    local text = table.concat(trim_blank_edges(lines_of(read_file(path))), "\n")
    return pandoc.CodeBlock(check_widths(text, max_code_line, path), {class = el.classes[1]})
  end
  local spec = el.attributes["snippet"]
  if spec then
    return pandoc.CodeBlock(check_widths(snippet(spec), max_code_line, spec), {class = "c"})
  end
  if el.classes:includes("output") then
    local program = el.attributes["program"]
    if not program then error("quote.lua: an output block needs program=\"chapterN\"") end
    local text = program_output(program, el.attributes["cells"])
    return output_block(check_widths(text, max_output_line, program .. " output"))
  end
end

-- Every marker in the files under src/ must be quoted somewhere in the book.
local function check_all_markers_used()
  local unused = {}
  for _, file in ipairs(sources()) do
    for _, l in ipairs(lines_of(read_file(source_dir .. "/" .. file))) do
      local name = l:match("^%s*//> (%S+)%s*$")
      if name and not used[file .. ":" .. name] then
        unused[#unused + 1] = file .. ":" .. name
      end
    end
  end
  if #unused > 0 then
    error("quote.lua: markers never quoted in the book: " .. table.concat(unused, ", "))
  end
end

function Header(el)
  local n = el.attributes["chapter"]
  if el.level == 1 and n then
    if not n:match("^%d+$") then error("quote.lua: chapter=\"" .. n .. "\" is not a number") end
    el.attributes["chapter"] = nil
    if FORMAT:match("latex") then
      return { pandoc.RawBlock("latex", "\\setcounter{chapter}{" .. (tonumber(n) - 1) .. "}"), el }
    end
    return el
  end
end

function Meta(meta)
  if meta["source-dir"] then source_dir = pandoc.utils.stringify(meta["source-dir"]) end
  if meta["output-dir"] then output_dir = pandoc.utils.stringify(meta["output-dir"]) end
end

function Pandoc(doc)
  doc = doc:walk({ CodeBlock = CodeBlock, Header = Header })
  check_all_markers_used()
  return doc
end

return {
  { Meta = Meta },
  { Pandoc = Pandoc },
}
