-- index.lua: the book's index of the field's terms. A term is marked where
-- the text teaches it or uses it for the first time in a chapter:
--
--   [positional encoding]{.index}
--   [the sinusoidal table]{.index term="positional encoding"}
--
-- The words stay as they are; the index lists the term (the words
-- themselves when there is no term="..."). In the PDF each mark becomes
-- \index{term} and the book ends with \printindex (makeidx; book/latex.sh
-- runs makeindex, which sorts the entries and gives their pages). In the
-- HTML each mark gets an anchor, and a last section lists the terms in
-- alphabetical order, each with links to its places, named by the number
-- of the section they are in (crossref.lua, which runs first, writes the
-- numbers into the headings). The build fails on an empty term.

local is_latex = FORMAT:match("latex") ~= nil
local places = {}   -- term -> list of { id = anchor, where = section number }
local count = 0

local function term_of(span)
  local term = span.attributes["term"] or pandoc.utils.stringify(span.content)
  term = term:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  if term == "" then error("index.lua: a mark [...]{.index} with no words and no term") end
  return term
end

-- A term as makeindex and LaTeX read it: its special characters quoted.
local function latex_term(term)
  term = term:gsub('["!@|]', '"%0')
  return (term:gsub("([#$%%&_{}])", "\\%1"))
end

local function mark(span, where)
  if not span.classes:includes("index") then return nil end
  local term = term_of(span)
  if is_latex then
    local out = pandoc.List(span.content)
    out:insert(pandoc.RawInline("latex", "\\index{" .. latex_term(term) .. "}"))
    return out
  end
  count = count + 1
  local id = "index-" .. count
  places[term] = places[term] or {}
  table.insert(places[term], { id = id, where = where })
  return pandoc.Span(span.content, { id = id })
end

-- The HTML's last section: a line a term, its places after it.
local function index_section()
  local terms = {}
  for term in pairs(places) do table.insert(terms, term) end
  table.sort(terms, function(a, b) return a:lower() < b:lower() end)
  local lines = {}
  for _, term in ipairs(terms) do
    local line = pandoc.List({ pandoc.Str(term) })
    for k, p in ipairs(places[term]) do
      line:insert(pandoc.Str(k == 1 and " " or ", "))
      line:insert(pandoc.Link(p.where, "#" .. p.id))
    end
    table.insert(lines, pandoc.Para(line))
  end
  return {
    pandoc.Header(1, "Index", { id = "index", class = "unnumbered" }),
    pandoc.Div(lines, { class = "book-index" }),
  }
end

-- A mark in a figure's caption would reach the list of figures too (and
-- crossref.lua writes the PDF's figures itself): the build refuses one.
local function refuse_in_caption(img)
  pandoc.walk_inline(img, { Span = function(s)
    if s.classes:includes("index") then
      error("index.lua: [" .. pandoc.utils.stringify(s.content) .. "]{.index} is in a figure's caption; mark it in the text")
    end
  end })
end

function Pandoc(doc)
  local where = "Introduction"
  local blocks = pandoc.List()
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" then
      -- a numbered heading by its number, an unnumbered chapter by its title
      if b.attributes["number"] then where = b.attributes["number"]
      elseif b.level == 1 then where = pandoc.utils.stringify(b.content) end
    end
    pandoc.walk_block(b, { Image = refuse_in_caption })
    blocks:insert(pandoc.walk_block(b, { Span = function(s) return mark(s, where) end }))
  end
  if is_latex then
    blocks:insert(pandoc.RawBlock("latex",
      "\\cleardoublepage\\phantomsection\\addcontentsline{toc}{chapter}{Index}\\printindex"))
  elseif count > 0 then
    blocks:extend(index_section())
  end
  doc.blocks = blocks
  return doc
end
