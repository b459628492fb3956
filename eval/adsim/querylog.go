package adsim

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deltaq/deltaq/ads"
)

// LogFormat is the layout of a query log (shared/data README §4).
type LogFormat string

// The query log layouts.
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
	Lines   int      // records read
	Empty   int      // records whose query normalizes to ""
	Phrases []Phrase // distinct phrases, most frequent first, ties by text
}

// maxLogLine bounds one line of a query log.
const maxLogLine = 1 << 16

// ReadLog reads a query log file; see ParseLog.
func ReadLog(path string) (*QueryLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("adsim: %w", err)
	}
	defer f.Close()
	l, err := ParseLog(f)
	if err != nil {
		return nil, fmt.Errorf("adsim: read %s: %w", path, err)
	}
	return l, nil
}

// ParseLog reads a query log, recognizing its format from its lines: three
// fields with a 12-digit time is Excite; two fields with a numeric second
// field is query<TAB>count; two fields with a numeric first field is TREC.
// Queries are normalized with ads.NormalizePhrase, the server's matching
// key, and equal phrases are summed; empty queries (Excite page turns) are
// counted in Empty and dropped.
func ParseLog(r io.Reader) (*QueryLog, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLogLine)
	var recs [][]string
	for sc.Scan() {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if len(line) == 0 {
			continue
		}
		recs = append(recs, strings.Split(string(line), "\t"))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no records")
	}
	format, err := detectFormat(recs)
	if err != nil {
		return nil, err
	}
	l := &QueryLog{Format: format, Lines: len(recs)}
	counts := map[string]int64{}
	for i, f := range recs {
		var q string
		n := int64(1)
		switch format {
		case FormatExcite:
			if len(f) != 3 {
				return nil, fmt.Errorf("line %d: %d fields, want user<TAB>time<TAB>query", i+1, len(f))
			}
			q = latin1(f[2])
		case FormatCounts:
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: %d fields, want query<TAB>count", i+1, len(f))
			}
			if n, err = strconv.ParseInt(f[1], 10, 64); err != nil || n < 0 || n > 1<<40 {
				return nil, fmt.Errorf("line %d: count %q: want an integer in [0, 2^40]", i+1, f[1])
			}
			q = f[0]
		case FormatTREC:
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: %d fields, want qid<TAB>query", i+1, len(f))
			}
			q = f[1]
		}
		p := ads.NormalizePhrase(q)
		if p == "" {
			l.Empty++
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

// detectFormat decides the layout from how the records look, all of them.
func detectFormat(recs [][]string) (LogFormat, error) {
	var three, firstNum, secondNum int
	for _, f := range recs {
		switch len(f) {
		case 3:
			if len(f[1]) == 12 && isDigits(f[1]) {
				three++
			}
		case 2:
			if isDigits(f[0]) {
				firstNum++
			}
			if isDigits(f[1]) {
				secondNum++
			}
		}
	}
	n := len(recs)
	switch {
	case three == n:
		return FormatExcite, nil
	case secondNum == n && firstNum < n:
		return FormatCounts, nil
	case firstNum == n:
		return FormatTREC, nil
	}
	return "", fmt.Errorf("unrecognized format: want query<TAB>count, user<TAB>time<TAB>query or qid<TAB>query on every line")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// latin1 decodes ISO-8859-1 bytes: each byte is the code point of the
// same value (the Excite log is not UTF-8).
func latin1(s string) string {
	if utf8.ValidString(s) && isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
