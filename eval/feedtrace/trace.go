package feedtrace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Feed is one feed of the trace: its name (owner/repo), the Atom URL its
// postings come from, and its posting times, sorted.
type Feed struct {
	Name     string
	AtomURL  string
	Postings []time.Time
}

// Trace is every feed of the dataset, sorted by name.
type Trace struct {
	Feeds []Feed
}

// maxLine bounds one TSV line; the real lines are under 300 bytes.
const maxLine = 64 << 10

// A posting time outside [minPosting, maxPosting) is a damaged line: the
// trace's feeds are Atom feeds (RFC 4287, 2005), and the year a posting
// falls in sets the evaluation's year.
var (
	minPosting = time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC)
	maxPosting = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Load reads feeds.tsv and commit-feeds.tsv.zst from dir.
func Load(ctx context.Context, dir string) (*Trace, error) {
	meta, err := os.ReadFile(filepath.Join(dir, "feeds.tsv"))
	if err != nil {
		return nil, fmt.Errorf("feedtrace: %w", err)
	}
	byName := map[string]*Feed{}
	tr := &Trace{}
	firstLine := map[string]int{} // feed name → the feeds.tsv line that gave it
	for i, line := range strings.Split(strings.TrimSpace(string(meta)), "\n") {
		if i == 0 {
			continue // header
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 17 {
			return nil, fmt.Errorf("feedtrace: feeds.tsv line %d: %d columns, want 17", i+1, len(cols))
		}
		// A feed listed twice would be evaluated twice, one copy
		// without postings, polled all the same.
		if at, dup := firstLine[cols[0]]; dup {
			return nil, fmt.Errorf("feedtrace: feeds.tsv line %d: feed %q again (first on line %d)", i+1, cols[0], at)
		}
		firstLine[cols[0]] = i + 1
		tr.Feeds = append(tr.Feeds, Feed{Name: cols[0], AtomURL: cols[16]})
	}
	slices.SortFunc(tr.Feeds, func(a, b Feed) int { return strings.Compare(a.Name, b.Name) })
	for i := range tr.Feeds {
		byName[tr.Feeds[i].Name] = &tr.Feeds[i]
	}
	f, err := os.Open(filepath.Join(dir, "commit-feeds.tsv.zst"))
	if err != nil {
		return nil, fmt.Errorf("feedtrace: %w", err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderMaxWindow(64<<20))
	if err != nil {
		return nil, fmt.Errorf("feedtrace: commit-feeds.tsv.zst: %w", err)
	}
	defer dec.Close()
	if err := readPostings(ctx, dec, byName); err != nil {
		return nil, err
	}
	for i := range tr.Feeds {
		slices.SortFunc(tr.Feeds[i].Postings, func(a, b time.Time) int { return a.Compare(b) })
	}
	return tr, nil
}

func readPostings(ctx context.Context, r io.Reader, byName map[string]*Feed) error {
	src := &readErr{r: r}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 4096), maxLine)
	for n := 1; sc.Scan(); n++ {
		if n%10000 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if src.err != nil {
			// The scanner hands over the line the stream broke in
			// before its error: the fault is the stream's, not a value's.
			return fmt.Errorf("feedtrace: commit-feeds.tsv.zst breaks off by line %d (a copy cut short?): %w", n, src.err)
		}
		line := sc.Bytes()
		if n == 1 && bytes.HasPrefix(line, []byte("feed\t")) {
			continue // header
		}
		tab := bytes.IndexByte(line, '\t')
		if tab < 0 {
			return fmt.Errorf("feedtrace: commit-feeds line %d: no tab", n)
		}
		name := string(line[:tab])
		rest, offset, hasOffset := bytes.Cut(line[tab+1:], []byte("\t"))
		sec, err := strconv.ParseInt(string(rest), 10, 64)
		if err != nil {
			return fmt.Errorf("feedtrace: commit-feeds line %d: unix_time %.40q: %w", n, rest, err)
		}
		if sec < minPosting.Unix() || sec >= maxPosting.Unix() {
			return fmt.Errorf("feedtrace: commit-feeds line %d: unix_time %d: must be from %s to before %s",
				n, sec, minPosting.Format(time.DateOnly), maxPosting.Format(time.DateOnly))
		}
		if hasOffset {
			// Read for its check alone: a line whose offset is damaged
			// may be damaged in its time too.
			if m, err := strconv.Atoi(string(offset)); err != nil || m < -12*60 || m > 14*60 {
				return fmt.Errorf("feedtrace: commit-feeds line %d: utc_offset_minutes %.40q: must be whole minutes from -720 to 840", n, offset)
			}
		}
		feed := byName[name]
		if feed == nil {
			return fmt.Errorf("feedtrace: commit-feeds line %d: feed %q is not in feeds.tsv", n, name)
		}
		feed.Postings = append(feed.Postings, time.Unix(sec, 0).UTC())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("feedtrace: commit-feeds: %w", err)
	}
	return nil
}

// readErr is r, keeping the first error its reads returned other than
// io.EOF.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// Postings returns the number of postings in the trace.
func (t *Trace) Postings() int {
	n := 0
	for _, f := range t.Feeds {
		n += len(f.Postings)
	}
	return n
}
