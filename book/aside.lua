-- aside.lua: a box for what a curious reader may open and any other reader
-- may skip: how a notebook's numbers were found, a bug's story, what the
-- tests check. In the Markdown,
--
--   ::: {.aside title="How the random seed was found"}
--   Paragraphs, lists, code...
--   :::
--
-- becomes a framed box with its title in bold at the top: in the PDF the
-- bookaside environment of book/header.tex (framed.sty, so that a box may
-- break across pages), in the HTML an <aside> that book/book.css draws.
-- The build fails on a box without a title.

function Div(div)
  if not div.classes:includes("aside") then return nil end
  local title = div.attributes["title"]
  if not title or title == "" then
    error("aside.lua: a box ::: {.aside} needs a title=\"...\"")
  end
  local heading = pandoc.Para({ pandoc.Strong(pandoc.Str(title)) })
  if FORMAT:match("latex") then
    local blocks = { pandoc.RawBlock("latex", "\\begin{bookaside}") , heading }
    for _, b in ipairs(div.content) do table.insert(blocks, b) end
    table.insert(blocks, pandoc.RawBlock("latex", "\\end{bookaside}"))
    return blocks
  end
  local blocks = { pandoc.RawBlock("html", '<aside class="aside">'), heading }
  for _, b in ipairs(div.content) do table.insert(blocks, b) end
  table.insert(blocks, pandoc.RawBlock("html", "</aside>"))
  return blocks
end
