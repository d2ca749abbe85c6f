-- crossref.lua: numbered figures and references to them, in the PDF and in
-- the HTML page alike (Debian's Pandoc 2.17 has no pandoc-crossref).
--
--   ![Caption: what the figure shows, in sentences.](07-zipf.pdf){#fig:zipf}
--
-- is figure N of its chapter, numbered as LaTeX numbers it (chapter.N, the
-- chapter being the one `{chapter=N}` names; A.N in the appendix). In the
-- text,
--
--   @fig:zipf        becomes  Figure 7.1, a link to the figure
--   [-@fig:zipf]     becomes  7.1 alone ("Figures [-@fig:a] and [-@fig:b]")
--   [@fig:a; @fig:b] becomes  Figures 2.1 and 2.2
--   @sec:name        becomes  Appendix B (Chapter 7, Section 7.3), a link to
--                    the heading {#sec:name}; [-@sec:name] the number alone
--
-- The list of figures (LaTeX's \listoffigures, metadata lof: true) shows
-- the caption's first sentence, or the figure's lof="..." attribute if it
-- has one. For HTML the filter also writes the numbers into the captions
-- and the headings (so that chapter 6 is 6 there too), makes a figure's
-- .pdf an .svg, and puts a list of figures before the first chapter.
--
-- The build fails on a figure without a caption or without a #fig: name, on
-- two figures with one name, on a reference to a figure that does not exist
-- and on a figure the text never refers to.
--
-- Inline code keeps one space between its words: a code span that the
-- Markdown wraps inside a list item would otherwise carry the line's end and
-- the item's indentation as four spaces (`--seed` and `42` a gap apart). In
-- the PDF a path may end a line after a slash, and a paragraph with a long
-- piece of code may end its lines short (the codepar of book/header.tex).
--
-- Run it before quote.lua (which takes the chapter attribute away) and
-- before --citeproc (which would take @fig:name for a citation).

local is_latex = FORMAT:match("latex") ~= nil

local figures = {}        -- name -> { number = "7.1", short = inlines }
local sections = {}       -- name -> { number = "B", word = "Appendix" }
local order = {}          -- names in the order of the book
local referenced = {}

local function fail(msg) error("crossref.lua: " .. msg, 0) end

local function is_figure(block)
  return block.t == "Para" and #block.content == 1 and block.content[1].t == "Image"
    and block.content[1].title:match("^fig:") ~= nil
end

-- The first sentence of a caption: up to the first full stop that ends a
-- word followed by a space (or the end).
local function first_sentence(inlines)
  local out = pandoc.List()
  for i, el in ipairs(inlines) do
    out:insert(el)
    if el.t == "Str" and el.text:match("%.$") and
       (inlines[i + 1] == nil or inlines[i + 1].t == "Space" or inlines[i + 1].t == "SoftBreak") then
      return out
    end
  end
  return out
end

-- Section and figure numbers, counted as LaTeX's report class counts them.
local counters = { 0, 0, 0, 0, 0, 0 }
local appendix = false
local fig_in_chapter = 0

local function chapter_label(n)
  if appendix then return string.char(string.byte("A") + n - 1) end
  return tostring(n)
end

local function header_number(level)
  local parts = { chapter_label(counters[1]) }
  for i = 2, level do parts[#parts + 1] = tostring(counters[i]) end
  return table.concat(parts, ".")
end

local function count_header(h)
  if h.classes:includes("unnumbered") then return nil end
  local level = h.level
  if level == 1 then
    local n = h.attributes["chapter"]
    counters[1] = n and tonumber(n) or counters[1] + 1
    fig_in_chapter = 0
  else
    counters[level] = counters[level] + 1
  end
  for i = level + 1, #counters do counters[i] = 0 end
  return header_number(level)
end

-- First pass: number every heading and figure, in the order of the book.
local function number_blocks(blocks)
  for _, b in ipairs(blocks) do
    if b.t == "Header" then
      local number = count_header(b)
      if number and not is_latex then b.attributes["number"] = number end
      if number and b.identifier:match("^sec:") then
        sections[b.identifier] = { number = number,
          word = b.level > 1 and "Section" or appendix and "Appendix" or "Chapter" }
      end
    elseif b.t == "RawBlock" and b.format == "latex" and b.text:match("\\appendix") then
      appendix = true
      counters[1] = 0
    elseif b.t == "Div" or b.t == "BlockQuote" then
      number_blocks(b.content)
    elseif is_figure(b) then
      local img = b.content[1]
      local name = img.identifier
      if #img.caption == 0 then fail("the figure " .. img.src .. " has no caption") end
      if name == "" or not name:match("^fig:") then
        fail("the figure " .. img.src .. " needs a name: ![Caption](" .. img.src .. "){#fig:name}")
      end
      if figures[name] then fail("two figures are named " .. name) end
      fig_in_chapter = fig_in_chapter + 1
      local short = img.attributes["lof"] and pandoc.read(img.attributes["lof"]).blocks[1].content
                    or first_sentence(img.caption)
      img.attributes["lof"] = nil
      figures[name] = { number = chapter_label(counters[1]) .. "." .. fig_in_chapter, short = short }
      order[#order + 1] = name
    end
  end
end

local function latex_of(inlines)
  return pandoc.write(pandoc.Pandoc({ pandoc.Plain(inlines) }), "latex"):gsub("\n+$", "")
end

-- A reference, @fig:name, becomes "Figure N" linked to the figure.
local function Cite(el)
  local c1 = el.citations[1]
  if #el.citations == 1 and c1.id:match("^sec:") then
    local sec = sections[c1.id] or fail("@" .. c1.id .. " refers to no numbered heading")
    local word = c1.mode == "SuppressAuthor" and "" or sec.word .. "\u{a0}"
    if is_latex then
      return pandoc.RawInline("latex", "\\hyperref[" .. c1.id .. "]{" .. word:gsub("\u{a0}", "~") ..
                              "\\ref*{" .. c1.id .. "}}")
    end
    return pandoc.Link(word .. sec.number, "#" .. c1.id)
  end
  local names = {}
  for _, c in ipairs(el.citations) do
    if c.id:match("^fig:") then names[#names + 1] = c
    elseif #names > 0 then fail("a citation mixes figures and works: " .. pandoc.utils.stringify(el)) end
  end
  if #names == 0 then return nil end
  if #names ~= #el.citations then fail("a citation mixes figures and works: " .. pandoc.utils.stringify(el)) end
  local out = pandoc.List()
  local bare = names[1].mode == "SuppressAuthor"
  if not bare then out:insert(pandoc.Str(#names > 1 and "Figures" or "Figure")); out:insert(pandoc.Str("\u{a0}")) end
  for i, c in ipairs(names) do
    local fig = figures[c.id]
    if not fig then fail("@" .. c.id .. " refers to no figure") end
    referenced[c.id] = true
    if i > 1 then
      out:insert(pandoc.Str(i == #names and (#names > 2 and ", and " or " and ") or ", "))
    end
    if is_latex then
      out:insert(pandoc.RawInline("latex", "\\ref{" .. c.id .. "}"))
    else
      out:insert(pandoc.Link(fig.number, "#" .. c.id))
    end
  end
  if #names == 1 and not bare then
    -- the whole "Figure N" is the link
    if is_latex then
      return pandoc.RawInline("latex", "\\hyperref[" .. names[1].id .. "]{Figure~\\ref*{" .. names[1].id .. "}}")
    end
    return pandoc.Link("Figure\u{a0}" .. figures[names[1].id].number, "#" .. names[1].id)
  end
  return out
end

-- A figure: in LaTeX, Pandoc's own figure with the short caption added for
-- the list of figures; in HTML, the number in the caption and an SVG image.
local function Figure(para)
  -- a reference in a caption (to another figure, a section) resolved first,
  -- in the caption and in its short form for the list of figures
  para = para:walk({ Cite = Cite })
  local img = para.content[1]
  local fig = figures[img.identifier]
  fig.short = pandoc.Plain(fig.short):walk({ Cite = Cite }).content
  if is_latex then
    local tex = pandoc.write(pandoc.Pandoc({ para }), "latex"):gsub("\n+$", "")
    -- Pandoc writes \caption{...}\label{fig:name}; give \caption its short form
    local short = latex_of(fig.short):gsub("%%", "%%%%")
    local n
    tex, n = tex:gsub("\\caption{", "\\caption[{" .. short .. "}]{", 1)
    if n ~= 1 then fail("no \\caption in Pandoc's LaTeX for " .. img.src) end
    return pandoc.RawBlock("latex", tex)
  end
  img.src = img.src:gsub("%.pdf$", ".svg")
  local caption = pandoc.List({ pandoc.Span({ pandoc.Str("Figure\u{a0}" .. fig.number .. ":") },
                                            { class = "figure-number" }), pandoc.Space() })
  caption:extend(img.caption)
  img.caption = caption
  return para
end

local function walk_figures(blocks)
  local out = pandoc.List()
  for _, b in ipairs(blocks) do
    if is_figure(b) then out:insert(Figure(b))
    elseif b.t == "Div" or b.t == "BlockQuote" then
      b.content = walk_figures(b.content); out:insert(b)
    else out:insert(b) end
  end
  return out
end

-- The HTML page's list of figures, before the first chapter.
local function html_list_of_figures()
  local items = pandoc.List()
  for _, name in ipairs(order) do
    local fig = figures[name]
    local line = pandoc.List({ pandoc.Link(fig.number, "#" .. name), pandoc.Space() })
    line:extend(fig.short)
    items:insert({ pandoc.Plain(line) })
  end
  return pandoc.Div({
    pandoc.Header(1, "List of figures", { id = "list-of-figures", class = "unnumbered unlisted" }),
    pandoc.BulletList(items) }, { id = "lof" })
end

-- Inline code, everywhere: every run of white space, a wrapped line's end
-- and its indentation included, becomes one space.
local function one_space(el)
  el.text = el.text:gsub("%s+", " ")
  return el
end

-- Inline code in LaTeX's text: a path may also end a line after one of its
-- slashes (tests/reference/ | chapter4_golden.py), where at least three
-- characters stand on either side, as \path would: a long file name then
-- no longer leaves the line before it with gaps between its words. Code's
-- own spaces stay the font's fixed width.
local function Code(el)
  local pieces = pandoc.List()
  local start = 1
  for slash in el.text:gmatch("()/") do
    local before = el.text:sub(start, slash):match("[^ ]*$")
    local after = el.text:sub(slash + 1):match("^[^ /]*")
    if #before >= 4 and #after >= 3 then
      pieces:insert(pandoc.Code(el.text:sub(start, slash), el.attr))
      pieces:insert(pandoc.RawInline("latex", "\\allowbreak{}"))
      start = slash + 1
    end
  end
  if #pieces == 0 then return el end
  pieces:insert(pandoc.Code(el.text:sub(start), el.attr))
  return pieces
end

-- A paragraph with a long piece of inline code (a command line, an error
-- message: LONG_CODE characters or more) leaves TeX few spaces to justify a
-- line with, since code's spaces do not stretch; in LaTeX it is set in the
-- codepar environment (book/header.tex), whose lines may end short instead
-- of opening gaps between words.
local LONG_CODE = 40

local function has_long_code(block)
  local long = false
  block:walk({ Code = function(c) if #c.text >= LONG_CODE then long = true end end })
  return long
end

-- LaTeX's paragraphs, in lists, divs and quotes too (not headings, whose
-- titles are PDF bookmarks, nor tables' cells): their inline code goes
-- through Code.
local function text_with_code(blocks)
  local out = pandoc.List()
  for _, b in ipairs(blocks) do
    if b.t == "Para" or b.t == "Plain" then
      local long = has_long_code(b)
      b = b:walk({ Code = Code })
      if long then
        -- inside the paragraph, so that a tight list stays tight
        b.content:insert(1, pandoc.RawInline("latex", "\\begin{codepar}"))
        b.content:insert(pandoc.RawInline("latex", "\\end{codepar}"))
      end
      out:insert(b)
    else
      if b.t == "BulletList" or b.t == "OrderedList" then
        for i, item in ipairs(b.content) do b.content[i] = text_with_code(item) end
      elseif b.t == "Div" or b.t == "BlockQuote" then
        b.content = text_with_code(b.content)
      end
      out:insert(b)
    end
  end
  return out
end

function Pandoc(doc)
  number_blocks(doc.blocks)
  doc.blocks = walk_figures(doc.blocks)
  doc = doc:walk({ Cite = Cite, Code = one_space })
  if is_latex then doc.blocks = text_with_code(doc.blocks) end
  for _, name in ipairs(order) do
    if not referenced[name] then
      fail("the text never refers to figure " .. name .. " (write @" .. name .. ")")
    end
  end
  if not is_latex and #order > 0 then
    doc.blocks:insert(1, html_list_of_figures())
  end
  return doc
end
