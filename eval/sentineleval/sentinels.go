package sentineleval

import (
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/watch"
)

// specFor makes a sentinel of type t on a page from its week's body, as
// the digest's reproduction plan says: phrases are random 5–15-word spans
// of the page's text, keywords come from real queries, regexes capture a
// page word and what follows it, tables and lists are the page's first.
// It reports false when the page has no such object (no table, say).
func specFor(t watch.Type, p *pageInfo, queries [][]string, rng *rand.Rand) (watch.Spec, bool) {
	s := watch.Spec{URL: p.url, Type: t, Every: 7 * 24 * time.Hour}
	words, body := p.words, p.body
	switch t {
	case watch.Keywords:
		s.Keywords = queries[rng.IntN(len(queries))]
	case watch.Regex:
		if len(words) == 0 {
			return s, false
		}
		w := strings.Trim(words[rng.IntN(len(words))], `.,;:!?"'()[]`)
		if w == "" {
			return s, false
		}
		s.Regex = regexp.QuoteMeta(w) + `[^<]{0,40}`
	case watch.Phrase:
		n := 5 + rng.IntN(11)
		if len(words) < n+1 {
			return s, false
		}
		start := rng.IntN(len(words) - n)
		s.Object = strings.Join(words[start:start+n], " ")
	case watch.Table:
		if !strings.Contains(strings.ToLower(string(body)), "<table") {
			return s, false
		}
	case watch.List:
		if !strings.Contains(strings.ToLower(string(body)), "<ul") && !strings.Contains(strings.ToLower(string(body)), "<ol") {
			return s, false
		}
	}
	return s, true
}

// pageInfo is one archive page as sentinels are made on it.
type pageInfo struct {
	url   string // absolute, on the replay host
	path  string // as in the archive
	body  []byte
	words []string // of the extracted main text
}

func newPageInfo(host, path string, body []byte, lim extract.Limits) (*pageInfo, error) {
	u, err := url.Parse(host + path)
	if err != nil {
		return nil, err
	}
	d, err := extract.HTML(body, "text/html; charset=utf-8", u, lim)
	if err != nil {
		return nil, err
	}
	return &pageInfo{url: host + path, path: path, body: body, words: strings.Fields(d.Text)}, nil
}

// queryWords splits queries into keyword lists of at most two words.
func queryWords(qs []string) [][]string {
	var out [][]string
	for _, q := range qs {
		ws := strings.Fields(q)
		if len(ws) > 2 {
			ws = ws[:2]
		}
		if len(ws) > 0 {
			out = append(out, ws)
		}
	}
	return out
}
