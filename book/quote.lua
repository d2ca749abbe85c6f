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
--   ```{.output program="chapter1" cells="T9-T11"}
--   ```
-- becomes the blocks of cells 9 to 11 from build/out/chapter1.txt, the
-- program's captured output, where each block starts with a line
-- `[LABEL] title`. A label is a source's letter and the number of the
-- notebook cell the block reproduces (T6: cell 6 of "Attention and
-- Transformers"), or P (for the program), the chapter's number, a dot and
-- the place of a block of the program's own (P4.2): a form no section,
-- figure or table number takes. cells may list labels and ranges of labels
-- with one prefix: "T2 T4-T6 P4.1-P4.3". Each block becomes a line that
-- names where it comes from, its header ("T9 · Attention and Transformers,
-- cell 9:" or "P4.2 · This program's own block:" and the title printed),
-- over a frame that holds what the program printed under that header.
--
--   ```{.output program="chapter1-timing" command="./chapter1 --timing"}
--   ```
-- becomes the whole output in one frame, under a line that names the
-- command that printed it ("./chapter1 --timing · output"). An output
-- block needs cells or command, so that no frame goes without a header.
--
--   ```{.python file="tests/reference/chapter4_twin.py"}
--   ```
-- becomes the whole of that file, its path taken from the directory the book
-- is built in: a script the book prints in full, such as a chapter's PyTorch
-- twin. With part="name" it becomes only the lines between `#> name` and
-- `#< name` in that file (a script's markers are comment lines starting
-- `#> ` and `#< `, dropped wherever the script is quoted): a chapter shows
-- the part of a twin that teaches, an appendix the whole.
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
-- it ("layers/tensor.c"). Finding none is an error: a check over no files
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

-- A label: a source's letter and a notebook cell's number ("T23"), P, a
-- chapter's number, a dot and the place of one of its program's own blocks
-- ("P4.2"), or a bare number (the benchmarks' "1"). Returns the prefix ("T",
-- "P4." or "") and the number, or nil for anything else ("4.2" included).
local function split_label(label)
  local prefix, n = label:match("^(%u?)(%d+)$")
  if not prefix then prefix, n = label:match("^(P%d+%.)(%d+)$") end
  if not prefix then return nil end
  return prefix, tonumber(n)
end

-- cells="T19-T22 P3.1-P3.2 T24": labels and ranges of labels, a range within
-- one prefix ("T19-T22", or "T19-22"), as a set of labels.
local function wanted_cells(spec)
  local set = {}
  for part in spec:gmatch("[^%s,]+") do
    local a, b = part:match("^([^-]+)%-([^-]+)$")
    if a then
      local pa, na = split_label(a)
      local pb, nb = split_label(b)
      if pa and b:match("^%d+$") then pb, nb = pa, tonumber(b) end
      if not pa or pa ~= pb or na > nb then
        error("quote.lua: bad range '" .. part .. "' in cells '" .. spec .. "'")
      end
      for i = na, nb do set[pa .. i] = true end
    elseif split_label(part) then
      set[part] = true
    else
      error("quote.lua: bad cells '" .. spec .. "'")
    end
  end
  return set
end

-- The label of a block's header line "[T23] title", or nil.
local function header_label(line)
  local label = line:match("^%[([%u%d%.]+)%] ")
  if label and split_label(label) then return label end
  return nil
end

-- The sources a notebook cell's label names by its letter: the title a
-- header gives (the illustrated guide's shortened, as the chapters shorten
-- it) and what the source calls its numbered parts.
local label_sources = {
  H = { title = "How and Why does Self Attention Work?", part = "cell" },
  T = { title = "Attention and Transformers", part = "cell" },
  G = { title = "An illustrated guide to Attention Mechanism", part = "step" },
  S = { title = "Studying the mechanism of self-attention", part = "cell" },
  U = { title = "Understanding Attention", part = "cell" },
}

-- The blocks of cells of a program's output, in the order printed: each
-- { label =, title =, text = } with the header line split off.
local function program_blocks(program, cells)
  local path = output_dir .. "/" .. program .. ".txt"
  local lines = lines_of(read_file(path))
  local want, seen, blocks, current = wanted_cells(cells), {}, {}, nil
  for _, l in ipairs(lines) do
    local label = header_label(l)
    if label then
      current = nil
      seen[label] = true
      if want[label] then
        current = { label = label, title = l:sub(#label + 4), lines = {} }
        blocks[#blocks + 1] = current
      end
    elseif current then
      current.lines[#current.lines + 1] = l
    end
  end
  for label in pairs(want) do
    if not seen[label] then error("quote.lua: " .. path .. " has no cell [" .. label .. "]") end
  end
  for _, block in ipairs(blocks) do
    -- blank lines that end a block are the program's spacing, not output
    block.text = table.concat(trim_blank_edges(block.lines), "\n")
  end
  return blocks
end

local function output_block(text)
  if FORMAT:match("latex") then
    return pandoc.RawBlock("latex",
      "\\begin{ProgramOutput}\n" .. text .. "\n\\end{ProgramOutput}")
  end
  return pandoc.CodeBlock(text, {class = "output"})
end

-- Keeping a quoted block on one page (LaTeX only). A frame of up to
-- KEEP_LINES lines, a listing of up to KEEP_LISTING_LINES, is never
-- broken: a new page starts before it when the rest of this one cannot
-- hold it, so that no float lands inside it and no line or two of it is
-- left over on the next page; a longer one
-- starts only where at least LEAD_LINES of it fit. The test is what the
-- needspace package does: a forced break when the room left on the page
-- (\pagegoal - \pagetotal) is less than the room asked for.
local KEEP_LINES, LEAD_LINES = 10, 3
-- A listing is kept whole up to more lines than a frame: a float that lands
-- between two halves of a listing cuts a function in two.
local KEEP_LISTING_LINES = 18

-- The room a block of n lines of \footnotesize asks for, in lines of the
-- text around it (a footnotesize line is about 0.8 of one), with extra
-- lines for a header or a frame; keep: the most lines kept whole.
local function room_for(n, extra, keep)
  if n > (keep or KEEP_LINES) then return LEAD_LINES + extra end
  return math.ceil(n * 0.8) + extra
end

local NEED_MARK = "%quote.lua: need "

-- TeX that starts a new page unless `lines` lines of text fit on this one
-- (book/header.tex's \bookneed).
local function need_tex(lines)
  return NEED_MARK .. lines .. "\n\\bookneed{" .. lines .. "}\n"
end

-- The lines a block of text asks for, when it starts with need_tex's mark.
local function needed(block)
  local text
  if block.t == "RawBlock" then text = block.text
  elseif block.t == "Plain" and block.content[1] and block.content[1].t == "RawInline" then
    text = block.content[1].text
  end
  return text and tonumber(text:match("^" .. escape(NEED_MARK) .. "(%d+)"))
end

-- A listing, kept on one page as above.
local function kept_listing(block, text)
  if not FORMAT:match("latex") then return block end
  return { pandoc.RawBlock("latex", need_tex(room_for(#lines_of(text), 1, KEEP_LISTING_LINES))),
           block }
end

-- inlines as a header line, kept on the page of the frame below it, which
-- has `lines` lines.
local function header_line(inlines, lines)
  if FORMAT:match("latex") then
    -- ragged right, and on the page of the frame below it
    inlines:insert(1, pandoc.RawInline("latex",
      need_tex(room_for(lines, 3)) .. "{\\small\\raggedright\\noindent "))
    inlines:insert(pandoc.RawInline("latex", "\\par}\\nopagebreak[4]"))
    return pandoc.Plain(inlines)
  end
  return pandoc.Div(pandoc.Plain(inlines), { class = "cell-header",
    style = "font-size: 90%; margin: 1.2em 0 -0.9em; color: #333;" })
end

-- The line above a block's frame that says where the block comes from: its
-- label, then a cell of a named source ("T23 · Attention and Transformers,
-- cell 23: ...") or the program's own ("P4.2 · This program's own block:
-- ..."), and the title as printed.
local function block_header(label, title, lines)
  local prefix, n = split_label(label)
  local lead
  if label_sources[prefix] then
    local source = label_sources[prefix]
    -- the guide's titles repeat the step: "step 3: keys = ..."
    title = title:gsub("^" .. source.part .. " " .. n .. ": ", "")
    lead = { pandoc.Emph(pandoc.Str(source.title)),
             pandoc.Str(", " .. source.part .. " " .. n .. ":") }
  elseif prefix == "" then
    lead = { pandoc.Str("This benchmark, part " .. n .. ":") }
    label = nil
  else
    lead = { pandoc.Str("This program's own block:") }
  end
  local inlines = pandoc.List()
  if label then
    inlines:extend({ pandoc.Strong(pandoc.Str(label)), pandoc.Space(), pandoc.Str("·"), pandoc.Space() })
  end
  inlines:extend(lead)
  inlines:insert(pandoc.Space())
  inlines:insert(pandoc.Code(title))
  return header_line(inlines, lines)
end

-- The line above a whole output's frame: the command that printed it
-- ("./chapter1 --timing · output").
local function command_header(command, lines)
  return header_line(pandoc.List({ pandoc.Code(command), pandoc.Space(), pandoc.Str("·"),
                                   pandoc.Space(), pandoc.Str("output") }), lines)
end

-- A cells="..." output block: each block's header, then its frame.
local function program_output(program, cells)
  local result = {}
  for _, block in ipairs(program_blocks(program, cells)) do
    result[#result + 1] = block_header(block.label, block.title, #lines_of(block.text))
    if block.text ~= "" then
      local where = program .. " output [" .. block.label .. "]"
      result[#result + 1] = output_block(check_widths(block.text, max_output_line, where))
    end
  end
  return result
end

-- A script named by file=, whole or the part between `#> name` and
-- `#< name`, without its marker lines.
local function script_lines(path, part)
  local marker = "^%s*#[<>] "
  local out, inside, found = {}, part == nil, part == nil
  local open_pat = part and "^%s*#> " .. escape(part) .. "%s*$"
  local close_pat = part and "^%s*#< " .. escape(part) .. "%s*$"
  for _, l in ipairs(lines_of(read_file(path))) do
    if part and l:match(close_pat) then
      if not inside then error("quote.lua: '#< " .. part .. "' before its '#> ' in " .. path) end
      inside = false; break
    elseif part and l:match(open_pat) then inside = true; found = true
    elseif inside and not l:match(marker) then out[#out + 1] = l
    end
  end
  if not found then error("quote.lua: no marker '#> " .. part .. "' in " .. path) end
  if part and inside then
    error("quote.lua: marker '" .. part .. "' in " .. path .. " is never closed")
  end
  return table.concat(dedent(trim_blank_edges(out)), "\n")
end

function CodeBlock(el)
  local path = el.attributes["file"]
  if path then
    local part = el.attributes["part"]
    local what = part and (path .. ":" .. part) or path
    local text = check_widths(script_lines(path, part), max_code_line, what)
    return kept_listing(pandoc.CodeBlock(text, {class = el.classes[1]}), text)
  end
  local spec = el.attributes["snippet"]
  if spec then
    local text = check_widths(snippet(spec), max_code_line, spec)
    return kept_listing(pandoc.CodeBlock(text, {class = "c"}), text)
  end
  if el.classes:includes("output") then
    local program = el.attributes["program"]
    if not program then error("quote.lua: an output block needs program=\"chapterN\"") end
    local cells = el.attributes["cells"]
    if cells then return program_output(program, cells) end
    local command = el.attributes["command"]
    if not command then
      error("quote.lua: the output block of " .. program .. " needs cells=\"...\" or " ..
            "command=\"...\": a frame with no header says nothing of where it comes from")
    end
    local text = table.concat(trim_blank_edges(lines_of(read_file(output_dir .. "/" .. program .. ".txt"))), "\n")
    return { command_header(command, #lines_of(text)),
             output_block(check_widths(text, max_output_line, program .. " output")) }
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

-- Whether b is a short paragraph that leads into what follows it: it ends
-- with a colon, and has at most LEAD_IN_CHARS characters (three lines).
local LEAD_IN_CHARS = 100
local function lead_in(b)
  if b.t ~= "Para" then return false end
  local text = pandoc.utils.stringify(b)
  return #text <= LEAD_IN_CHARS and text:match(":%s*$") ~= nil
end

-- A heading directly above a kept block asks for the block's room and its
-- own, so that a new page starts before the heading, not between the two;
-- so does a short paragraph that leads into the block with a colon ("The
-- pieces they are made of:"), for its lines (at most three).
-- A heading above such a paragraph asks for both, the block's room and
-- their own, so that neither the heading nor the paragraph is left alone.
local function keep_headings_with_blocks(blocks)
  local out = pandoc.List()
  for i, b in ipairs(blocks) do
    local lines
    if b.t == "Header" and blocks[i + 1] and lead_in(blocks[i + 1]) and blocks[i + 2] then
      lines = needed(blocks[i + 2]) and needed(blocks[i + 2]) + 3
    elseif lead_in(b) and not (blocks[i - 1] and blocks[i - 1].t == "Header") then
      lines = blocks[i + 1] and needed(blocks[i + 1])
      lines = lines and lines + 3
    elseif b.t == "Header" then
      lines = blocks[i + 1] and needed(blocks[i + 1])
    end
    if lines and FORMAT:match("latex") then
      out:insert(pandoc.RawBlock("latex", need_tex(lines + (b.t == "Header" and 4 or 0))))
    end
    out:insert(b)
  end
  return out
end

function Pandoc(doc)
  doc = doc:walk({ CodeBlock = CodeBlock, Header = Header })
  doc.blocks = keep_headings_with_blocks(doc.blocks)
  check_all_markers_used()
  return doc
end

return {
  { Meta = Meta },
  { Pandoc = Pandoc },
}
