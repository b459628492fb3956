package adsim

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/internal/querylog"
)

// LogFormat is the layout of a query log (shared/data README §4), named
// for the report.
type LogFormat string

// The query log layouts, one per querylog format.
const (
	// FormatCounts is query<TAB>count (tldr-brew-installs.tsv).
	FormatCounts LogFormat = "query-count"
	// FormatExcite is user<TAB>time<TAB>query, Latin-1 (excite-1997-small.tsv).
	FormatExcite LogFormat = "excite"
	// FormatTREC is qid<TAB>query (trec-mq.tsv).
	FormatTREC LogFormat = "trec"
)

// Phrase is a query phrase Q_j and how often it occurs in the log.
type Phrase struct {
	Text  string // ads.NormalizePhrase of the query
	Count int64
}

// QueryLog is a log reduced to phrase frequencies: what the thesis had of
// its Yahoo! log ("the frequency counts of these query phrases but not
// the actual order", §6.7.1).
type QueryLog struct {
	Format  LogFormat
	Lines   int      // lines read
	Empty   int      // blank lines and queries (by count) that normalize to ""
	Phrases []Phrase // distinct phrases, most frequent first, ties by text
}

// ReadLog reads a query log file; see ParseLog.
func ReadLog(path string) (*QueryLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("adsim: %w", err)
	}
	defer f.Close()
	l, err := parseLog(f, path)
	if err != nil {
		return nil, fmt.Errorf("adsim: %w", err)
	}
	return l, nil
}

// ParseLog reads a query log with querylog.Read, which recognizes its
// format from its lines. Queries are normalized with ads.NormalizePhrase,
// the server's matching key, and equal phrases are summed; empty queries
// (Excite page turns) are counted in Empty and dropped. Counts must be
// integers, since the simulation issues whole queries.
func ParseLog(r io.Reader) (*QueryLog, error) {
	return parseLog(r, "query log")
}

// formats names querylog's formats as the report does.
var formats = map[querylog.Format]LogFormat{
	querylog.FormatCounts: FormatCounts,
	querylog.FormatRaw:    FormatExcite,
	querylog.FormatTopics: FormatTREC,
}

func parseLog(r io.Reader, name string) (*QueryLog, error) {
	ql, err := querylog.Read(r, name, querylog.FormatAuto)
	if err != nil {
		return nil, err
	}
	if ql.Lines == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	l := &QueryLog{Format: formats[ql.Format], Lines: ql.Lines, Empty: ql.Skipped}
	counts := map[string]int64{}
	for _, q := range ql.Queries {
		if q.Count != math.Trunc(q.Count) || q.Count > 1<<40 {
			return nil, fmt.Errorf("%s: query %q: count %v: want an integer in [0, 2^40]", name, q.Text, q.Count)
		}
		n := int64(q.Count)
		p := ads.NormalizePhrase(q.Text)
		if p == "" {
			l.Empty += int(n)
			continue
		}
		if n > 0 {
			counts[p] += n
		}
	}
	for p, n := range counts {
		l.Phrases = append(l.Phrases, Phrase{Text: p, Count: n})
	}
	slices.SortFunc(l.Phrases, func(a, b Phrase) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Text, b.Text))
	})
	return l, nil
}
