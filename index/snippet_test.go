package index

import (
	stdhtml "html"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search"
	"golang.org/x/net/html"

	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
)

// snippet is cutSnippet's HTML for matches given as Bleve term locations.
func snippet[T string | []byte](text T, locs search.TermLocationMap, size int) string {
	var matches []Span
	for _, ls := range locs {
		for _, l := range ls {
			matches = append(matches, Span{int(l.Start), int(l.End)})
		}
	}
	return cutSnippet(text, matches, size, new(snippetBufs)).HTML
}

// spansOf is where words occur in text, ignoring case, as an analyzer
// would find them (the texts here keep their byte lengths lower-cased).
func spansOf(text string, words ...string) []Span {
	lower := strings.ToLower(text)
	var spans []Span
	for _, w := range words {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			spans = append(spans, Span{i + j, i + j + len(w)})
			i += j + len(w)
		}
	}
	return spans
}

func TestSnippet(t *testing.T) {
	text := strings.Repeat("früh ", 60) + "the budget line " + strings.Repeat("später ", 60)
	at := strings.Index(text, "budget")
	locs := search.TermLocationMap{"budget": {{Start: uint64(at), End: uint64(at + len("budget"))}}}
	got := snippet(text, locs, 80)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("a cut at both ends is not marked: %q", got)
	}
	if !strings.Contains(got, "the <mark>budget</mark> line") {
		t.Errorf("match not marked: %q", got)
	}
	if !utf8.ValidString(got) || len(got) > 80+40 {
		t.Errorf("snippet of %d bytes, valid UTF-8 %v: %q", len(got), utf8.ValidString(got), got)
	}
	if s := snippet("short <b>text</b>", nil, 80); s != "short &lt;b&gt;text&lt;/b&gt;" {
		t.Errorf("no matches: %q", s)
	}
}

// parseSnippet reads an HTML snippet as a browser or an HTML client does:
// its text, and the spans of its <mark> elements.
func parseSnippet(s string) (string, []Span) {
	var b strings.Builder
	spans := []Span{}
	start := -1
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String(), spans
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken:
			start = b.Len()
		case html.EndTagToken:
			spans = append(spans, Span{start, b.Len()})
		}
	}
}

// TestSnippetTextIsWhatHTMLParsingReads: the plain text and spans cut
// beside a snippet are what parsing its HTML gives, for pages with markup
// characters, white space at the ends and matches at the edges, and for
// the hits of 200 trec-mq queries on digitalgov week 0; a carriage return
// (which parsing rewrites) leaves no plain form.
func TestSnippetTextIsWhatHTMLParsingReads(t *testing.T) {
	check := func(name string, c snippetCut) {
		t.Helper()
		text, spans := parseSnippet(c.HTML)
		if c.Spans == nil || c.Text != text || !slices.Equal(c.Spans, spans) {
			t.Errorf("%s: %q: cut %q %v, parsed %q %v", name, c.HTML, c.Text, c.Spans, text, spans)
		}
	}
	for _, text := range []string{
		"  budget & <b>\"spending\"</b> 'report' &amp; budget  ",
		"budget",
		"\t\n budget",
		"   ",
		"\u00a0\u2003budget &\u00a0",
		strings.Repeat("früh ", 60) + "the budget & line " + strings.Repeat("später ", 60),
	} {
		check(text, cutSnippet(text, spansOf(text, "budget", "spending"), 80, new(snippetBufs)))
	}
	if c := cutSnippet("a budget\r\nline", spansOf("a budget\r\nline", "budget"), 80, new(snippetBufs)); c.Spans != nil || c.Text != "" {
		t.Errorf("carriage return: plain %q %v, want none", c.Text, c.Spans)
	}
	fx := week0Index(t, ScoringBM25)
	qs, err := querylog.Load(datasets.Path(t, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, qq := range qs[:200] {
		q, err := ParseQuery(qq.Text, fx.ix.cfg.Limits())
		if err != nil {
			continue
		}
		res, err := fx.ix.Search(t.Context(), q, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			check(h.URL, snippetCut{HTML: h.Snippet, Text: h.SnippetText, Spans: h.Highlights})
			marked += len(h.Highlights)
		}
	}
	if marked < 1000 {
		t.Fatalf("only %d marked matches in the hits", marked)
	}
}

// TestEscapedIsHTMLEscapeString checks appendEscaped against
// html.EscapeString with each byte it replaces (and a multi-byte
// character) at every offset of a plain string, alone and doubled, as a
// string and as bytes.
func TestEscapedIsHTMLEscapeString(t *testing.T) {
	const plain = "abcdefghijklmnopqrstuvwxyz 0123456789"
	var strs []string
	for _, sp := range []string{"<", ">", "&", "'", `"`, "é", "\x00"} {
		for i := 0; i <= 24; i++ {
			strs = append(strs, plain[:i]+sp+plain[i:], plain[:i]+sp+sp+plain, plain[:i]+sp)
		}
	}
	for _, s := range strs {
		want := stdhtml.EscapeString(s)
		if got := string(appendEscaped([]byte("x"), s)); got != "x"+want {
			t.Errorf("%q: got %q, want %q", s, got, "x"+want)
		}
		if got := string(appendEscaped(nil, []byte(s))); got != want {
			t.Errorf("%q as bytes: got %q, want %q", s, got, want)
		}
	}
}

func TestCutPageSnippet(t *testing.T) {
	stored := IndexedText("Budget office", "The office publishes the budget.")
	for _, tc := range []struct {
		title, words string
		want         string
	}{
		{"Budget office", "budget", "The office publishes the <mark>budget</mark>."},
		{"Budget office", "", "The office publishes the budget."},
		// Not the title the text was made with: the whole text is cut.
		{"Budget", "office", "Budget <mark>office</mark>\n\nThe <mark>office</mark> publishes the budget."},
	} {
		matches := spansOf(stored, strings.Fields(tc.words)...)
		if got := cutPageSnippet(stored, tc.title, matches, 200, new(snippetBufs)).HTML; got != tc.want {
			t.Errorf("title %q, matches of %q: %q, want %q", tc.title, tc.words, got, tc.want)
		}
	}
	if got := cutPageSnippet("Only a title", "Only a title", nil, 200, new(snippetBufs)).HTML; got != "Only a title" {
		t.Errorf("a page without main text: %q, want its title", got)
	}
	// A heading that repeats the title, or its part before the site's
	// name, is skipped too; words that only start like it are not.
	for _, tc := range []struct{ title, text, words, want string }{
		{"Budget office", "Budget office The office publishes the budget.", "budget", "The office publishes the <mark>budget</mark>."},
		{"Budget office | City of Springfield", "Budget office The office publishes the budget.", "budget", "The office publishes the <mark>budget</mark>."},
		{"Budget office — City", "Budget office  \n The office.", "office", "The <mark>office</mark>."},
		{"Budget office | City", "Budget offices publish budgets.", "budget", "<mark>Budget</mark> offices publish <mark>budget</mark>s."},
		{"Budget office | City", "Budget plans.", "budget", "<mark>Budget</mark> plans."},
		{"Budget | City", "Budget", "budget", "<mark>Budget</mark>"},
		{"Café über | City", "Café über alles.", "alles", "<mark>alles</mark>."},
		{"Café über | City", "Café überall.", "café", "<mark>Café</mark> überall."},
	} {
		stored := IndexedText(tc.title, tc.text)
		matches := spansOf(stored, strings.Fields(tc.words)...)
		if got := cutPageSnippet(stored, tc.title, matches, 200, new(snippetBufs)).HTML; got != tc.want {
			t.Errorf("title %q, text %q, matches of %q: %q, want %q", tc.title, tc.text, tc.words, got, tc.want)
		}
	}
}
