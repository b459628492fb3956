package querylog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format names a query-log line format.
type Format int

const (
	// FormatAuto detects the format from the first lines (see the package doc).
	FormatAuto Format = iota
	// FormatCounts is query<TAB>count.
	FormatCounts
	// FormatRaw is user<TAB>time<TAB>query, one line per issued query, Latin-1.
	FormatRaw
	// FormatTopics is qid<TAB>query, each line counting once.
	FormatTopics
)

var formatNames = [...]string{"auto", "counts", "raw", "topics"}

func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// ParseFormat maps a configuration value ("auto", "counts", "raw",
// "topics") to its Format.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if s == n {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("querylog: format %q: want one of %s", s, strings.Join(formatNames[:], ", "))
}

// Query is one distinct query string and how often it was issued (f_q).
type Query struct {
	Text  string
	Count float64
}

// Log is the result of reading one query log.
type Log struct {
	Format  Format  // the format read (never FormatAuto)
	Lines   int     // lines read, including skipped ones
	Skipped int     // lines skipped: blank lines and raw lines with an empty query
	Queries []Query // distinct queries in order of first appearance
}

// Total is the sum of the counts of all queries.
func (l *Log) Total() float64 {
	var t float64
	for _, q := range l.Queries {
		t += q.Count
	}
	return t
}

// ErrAmbiguous is returned by FormatAuto when the lines fit more than one format.
var ErrAmbiguous = errors.New("querylog: format is ambiguous")

// MaxLineBytes bounds one line; a longer line is an error, not a truncation.
const MaxLineBytes = 1 << 20

// detectLines is how many leading lines FormatAuto looks at.
const detectLines = 1000

// Load reads the query log at path.
func Load(path string, format Format) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("querylog: %w", err)
	}
	defer f.Close()
	l, err := Read(f, path, format)
	if err != nil {
		return nil, err
	}
	return l.Queries, nil
}

// Read reads a query log from r; name is used in error messages.
func Read(r io.Reader, name string, format Format) (*Log, error) {
	if format < FormatAuto || format > FormatTopics {
		return nil, fmt.Errorf("querylog: %s: unknown format %d", name, int(format))
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	rd := &reader{name: name, sc: sc, log: &Log{Format: format}, index: map[string]int{}}
	if format == FormatAuto {
		if err := rd.detect(); err != nil {
			return nil, err
		}
	}
	for _, ln := range rd.pending {
		if err := rd.line(ln.no, ln.text); err != nil {
			return nil, err
		}
	}
	rd.pending = nil
	for rd.next() {
		if err := rd.line(rd.no, rd.current()); err != nil {
			return nil, err
		}
	}
	if err := rd.err(); err != nil {
		return nil, err
	}
	return rd.log, nil
}

type numberedLine struct {
	no   int
	text []byte
}

type reader struct {
	name    string
	sc      *bufio.Scanner
	no      int
	log     *Log
	index   map[string]int // query text → position in log.Queries
	pending []numberedLine // lines read during detection
}

func (rd *reader) next() bool {
	if !rd.sc.Scan() {
		return false
	}
	rd.no++
	return true
}

// current is the current line; on the first, without a UTF-8 byte order
// mark, which would otherwise become part of the first query (or make
// its id no integer).
func (rd *reader) current() []byte {
	b := rd.sc.Bytes()
	if rd.no == 1 {
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
	}
	return b
}

func (rd *reader) err() error {
	if err := rd.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("querylog: %s:%d: line longer than %d bytes", rd.name, rd.no+1, MaxLineBytes)
		}
		return fmt.Errorf("querylog: %s: read: %w", rd.name, err)
	}
	return nil
}

// detect reads up to detectLines non-blank lines and decides the format
// from their column shape.
func (rd *reader) detect() error {
	cols := 0
	firstNo := 0
	allIntID, allNumCount := true, true
	notID, notCount := 0, 0 // the first line whose first column is no id, whose second is no count
	seen := 0
	for seen < detectLines && rd.next() {
		text := bytes.Clone(rd.current())
		rd.pending = append(rd.pending, numberedLine{rd.no, text})
		text = bytes.TrimSuffix(text, []byte("\r"))
		if len(text) == 0 {
			continue
		}
		seen++
		n := bytes.Count(text, []byte("\t")) + 1
		if cols == 0 {
			cols, firstNo = n, rd.no
		} else if n != cols {
			return fmt.Errorf("querylog: %s:%d: %d columns, but line %d has %d: cannot detect the format",
				rd.name, rd.no, n, firstNo, cols)
		}
		if n == 2 {
			a, b, _ := bytes.Cut(text, []byte("\t"))
			if _, err := strconv.ParseUint(string(a), 10, 64); err != nil && allIntID {
				allIntID, notID = false, rd.no
			}
			if _, err := parseCount(string(b)); err != nil && allNumCount {
				allNumCount, notCount = false, rd.no
			}
		}
	}
	if err := rd.err(); err != nil {
		return err
	}
	switch {
	case cols == 0:
		rd.log.Format = FormatCounts // empty file: any format reads it as empty
	case cols == 3:
		rd.log.Format = FormatRaw
	case cols == 2 && allNumCount && !allIntID:
		rd.log.Format = FormatCounts
	case cols == 2 && allIntID && !allNumCount:
		rd.log.Format = FormatTopics
	case cols == 2 && allIntID && allNumCount:
		return fmt.Errorf("%w: %s: both columns are numbers (query<TAB>count or qid<TAB>query?); give the format", ErrAmbiguous, rd.name)
	case cols == 2:
		return fmt.Errorf("querylog: %s: two columns, but neither every second column is a count (line %d's is not) nor every first an integer id (line %d's is not)",
			rd.name, notCount, notID)
	default:
		return fmt.Errorf("querylog: %s:%d: %d tab-separated columns: want 2 (query, count or qid, query) or 3 (user, time, query)",
			rd.name, firstNo, cols)
	}
	return nil
}

func (rd *reader) line(no int, text []byte) error {
	rd.log.Lines++
	text = bytes.TrimSuffix(text, []byte("\r"))
	if len(text) == 0 {
		rd.log.Skipped++
		return nil
	}
	cols := strings.Split(string(text), "\t")
	bad := func(format string, args ...any) error {
		return fmt.Errorf("querylog: %s:%d: %s", rd.name, no, fmt.Sprintf(format, args...))
	}
	switch rd.log.Format {
	case FormatCounts:
		if len(cols) != 2 {
			return bad("%d columns: want 2 (query<TAB>count)", len(cols))
		}
		c, err := parseCount(cols[1])
		if err != nil {
			return bad("count %q: %v", cols[1], err)
		}
		if !utf8.ValidString(cols[0]) {
			return bad("query is not valid UTF-8")
		}
		if strings.TrimSpace(cols[0]) == "" {
			return bad("empty query")
		}
		rd.add(cols[0], c)
	case FormatTopics:
		if len(cols) != 2 {
			return bad("%d columns: want 2 (qid<TAB>query)", len(cols))
		}
		if _, err := strconv.ParseUint(cols[0], 10, 64); err != nil {
			return bad("query id %q: not a non-negative integer", cols[0])
		}
		if !utf8.ValidString(cols[1]) {
			return bad("query is not valid UTF-8")
		}
		if strings.TrimSpace(cols[1]) == "" {
			return bad("empty query")
		}
		rd.add(cols[1], 1)
	case FormatRaw:
		if len(cols) != 3 {
			return bad("%d columns: want 3 (user<TAB>time<TAB>query)", len(cols))
		}
		if cols[0] == "" {
			return bad("empty user id")
		}
		if !isTime(cols[1]) {
			return bad("time %q: want 12 digits YYMMDDhhmmss", cols[1])
		}
		q := latin1(cols[2])
		if strings.TrimSpace(q) == "" {
			rd.log.Skipped++ // a page turn or an empty search: kept in the log, not a query
			return nil
		}
		rd.add(q, 1)
	}
	return nil
}

func (rd *reader) add(text string, count float64) {
	if i, ok := rd.index[text]; ok {
		rd.log.Queries[i].Count += count
		return
	}
	rd.index[text] = len(rd.log.Queries)
	rd.log.Queries = append(rd.log.Queries, Query{Text: text, Count: count})
}

func parseCount(s string) (float64, error) {
	c, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
		return 0, errors.New("must be a finite number >= 0")
	}
	return c, nil
}

func isTime(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// latin1 decodes ISO 8859-1: every byte is the code point of the same value.
func latin1(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}
