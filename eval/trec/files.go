package trec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Qrels maps topic → document → relevance value.
type Qrels map[string]map[string]int

// ReadQrels reads "topic iteration docno relevance" lines.
func ReadQrels(r io.Reader) (Qrels, error) {
	q := Qrels{}
	err := eachLine(r, "qrels", func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) != 4 {
			return fmt.Errorf("trec: qrels line %d: want 4 fields (topic iteration docno relevance), got %d", n, len(f))
		}
		rel, err := strconv.Atoi(f[3])
		if err != nil {
			return fmt.Errorf("trec: qrels line %d: relevance %q is not an integer", n, f[3])
		}
		if q[f[0]] == nil {
			q[f[0]] = map[string]int{}
		}
		if _, dup := q[f[0]][f[2]]; dup {
			return fmt.Errorf("trec: qrels line %d: document %s judged twice for topic %s", n, f[2], f[0])
		}
		q[f[0]][f[2]] = rel
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(q) == 0 {
		return nil, errors.New("trec: qrels: no judgments")
	}
	return q, nil
}

// maxLine is the longest line the files may have.
const maxLine = 1 << 20

// eachLine calls fn with the 1-based number and the text of every
// non-blank line of r; what names the file in read errors.
func eachLine(r io.Reader, what string, fn func(n int, line string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			// A UTF-8 byte order mark would otherwise stay in the first
			// topic id, which then matches no judgment.
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("trec: %s line %d: longer than the %d-byte limit", what, n+1, maxLine)
	} else if err != nil {
		return fmt.Errorf("trec: %s: %w", what, err)
	}
	return nil
}

// Hit is one retrieved document.
type Hit struct {
	Doc   string
	Score float64
}

// Run maps topic → retrieved documents.
type Run map[string][]Hit

// ordered returns a topic's hits in trec_eval's order: score descending,
// ties by docno descending.
func ordered(hits []Hit) []Hit {
	out := append([]Hit(nil), hits...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Doc > out[j].Doc
	})
	return out
}

// Write writes the run in TREC format, "topic Q0 docno rank score tag",
// topics in lexical order and hits in evaluation order. Each score is
// written in full (the shortest text that reads back as the same float):
// trec_eval orders by the score it reads, so scores rounded to equal text
// would be reordered by docno and the file would no longer be the list
// Evaluate scored.
func (r Run) Write(w io.Writer, tag string) error {
	topics := make([]string, 0, len(r))
	for t := range r {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	bw := bufio.NewWriter(w)
	for _, t := range topics {
		seen := map[string]bool{}
		for i, h := range ordered(r[t]) {
			if strings.ContainsAny(h.Doc, " \t\n") {
				return fmt.Errorf("trec: run: topic %s: docno %q contains white space", t, h.Doc)
			}
			if seen[h.Doc] {
				// trec_eval refuses such a file, and Evaluate would count
				// the document's relevance twice.
				return fmt.Errorf("trec: run: topic %s: docno %s retrieved twice", t, h.Doc)
			}
			seen[h.Doc] = true
			fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", t, h.Doc, i+1, strconv.FormatFloat(h.Score, 'f', -1, 64), tag)
		}
	}
	return bw.Flush()
}

// ReadRun reads a run file.
func ReadRun(r io.Reader) (Run, error) {
	run := Run{}
	first := map[[2]string]int{} // (topic, docno) → the line that gave it
	err := eachLine(r, "run", func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) != 6 {
			return fmt.Errorf("trec: run line %d: want 6 fields (topic Q0 docno rank score tag), got %d", n, len(f))
		}
		if at, dup := first[[2]string{f[0], f[2]}]; dup {
			return fmt.Errorf("trec: run line %d: document %s retrieved twice for topic %s (first on line %d)", n, f[2], f[0], at)
		}
		first[[2]string{f[0], f[2]}] = n
		s, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			return fmt.Errorf("trec: run line %d: score %q: %w", n, f[4], err)
		}
		run[f[0]] = append(run[f[0]], Hit{Doc: f[2], Score: s})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// Topic is one query of a topics file.
type Topic struct {
	ID, Query string
}

// ReadTopics reads "id<TAB>query" lines (the format of the TREC Million
// Query topics in querylogs/trec-mq.tsv).
func ReadTopics(r io.Reader) ([]Topic, error) {
	var out []Topic
	first := map[string]int{} // id → the line that gave it
	err := eachLine(r, "topics", func(n int, line string) error {
		id, q, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(id) == "" {
			return fmt.Errorf("trec: topics line %d: want id<TAB>query", n)
		}
		id = strings.TrimSpace(id)
		if at, dup := first[id]; dup {
			// Scored once but searched twice, a topic would count twice
			// in no mean and once in the run: refuse it.
			return fmt.Errorf("trec: topics line %d: topic %s again (first on line %d)", n, id, at)
		}
		first[id] = n
		out = append(out, Topic{ID: id, Query: strings.TrimSpace(q)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
