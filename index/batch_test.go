package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/internal/segdamage"
	"github.com/deltaq/deltaq/repo"
)

var t1 = t0.Add(7 * 24 * time.Hour)

// indexedDocs returns every document in the index with its stored fetch time.
func indexedDocs(t *testing.T, ix *Index) map[string]time.Time {
	t.Helper()
	req := bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), 1000000, 0, false)
	req.Fields = []string{FieldFetched}
	res, err := ix.bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, h := range res.Hits {
		s, _ := h.Fields[FieldFetched].(string)
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("%s: fetched %q: %v", h.ID, s, err)
		}
		out[h.ID] = at
	}
	return out
}

// indexablePages returns the repository's indexable pages with their version time.
func indexablePages(t *testing.T, db *repo.DB) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for p, err := range db.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Indexable() {
			out[p.URL] = p.Version
		}
	}
	return out
}

// agree fails unless the index holds exactly the indexable pages, each at
// its current version.
func agree(t *testing.T, ix *Index, db *repo.DB) {
	t.Helper()
	got, want := indexedDocs(t, ix), indexablePages(t, db)
	if len(got) != len(want) {
		t.Fatalf("index has %d documents, repository %d indexable pages", len(got), len(want))
	}
	for u, v := range want {
		if at, ok := got[u]; !ok || !at.Equal(v.Truncate(time.Second)) {
			t.Fatalf("%s: indexed version %v (present %v), repository %v", u, at, ok, v)
		}
	}
}

func TestCatchUpFollowsTheFeed(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, smallCorpus...)
	if ix.Lag() != uint64(len(smallCorpus)) {
		t.Fatalf("lag %d before catching up", ix.Lag())
	}
	st := catchUp(t, ix)
	if st.Indexed != len(smallCorpus) || st.Watermark != db.LastChangeSeq() || ix.Lag() != 0 {
		t.Fatalf("stats %+v, lag %d", st, ix.Lag())
	}
	agree(t, ix, db)

	t.Run("a page that went 404 leaves the index", func(t *testing.T) {
		goPages(t, db, t1, smallCorpus[0].URL)
		if st := catchUp(t, ix); st.Deleted != 1 {
			t.Fatalf("stats %+v", st)
		}
		agree(t, ix, db)
	})
	t.Run("a page that turned noindex leaves the index", func(t *testing.T) {
		b := db.NewBatch(t.Context())
		p := must[repo.Page](t)(db.Page(smallCorpus[1].URL))
		p.NoIndex = true
		if err := b.PutPage(&p); err != nil {
			t.Fatal(err)
		}
		b.AppendChange(p.URL, repo.ChangeUpsert, t1)
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		if st := catchUp(t, ix); st.Deleted != 1 {
			t.Fatalf("stats %+v", st)
		}
		agree(t, ix, db)
	})
	t.Run("several changes of one page in a batch index its latest version once", func(t *testing.T) {
		putPages(t, db, t1, page{URL: smallCorpus[2].URL, Title: "v2", Text: "second"})
		putPages(t, db, t1.Add(time.Hour), page{URL: smallCorpus[2].URL, Title: "v3", Text: "third"})
		if st := catchUp(t, ix); st.Indexed != 1 || st.Changes != 2 {
			t.Fatalf("stats %+v", st)
		}
		agree(t, ix, db)
	})
	t.Run("nothing to do is a no-op", func(t *testing.T) {
		if st := catchUp(t, ix); st.Changes != 0 || st.Batches != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestFirstIndexingIsNotMeasured(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{
		Workload: []querylog.Query{{Text: "federal budget", Count: 3}}})
	putPages(t, db, t0, smallCorpus...)
	if st := catchUp(t, ix); st.Measured != 0 {
		t.Fatalf("first indexing measured %d pages", st.Measured)
	}
	putPages(t, db, t1, page{URL: smallCorpus[0].URL, Title: "Budget report", Text: "Spending only."})
	if st := catchUp(t, ix); st.Measured != 1 {
		t.Fatalf("re-download measured %d pages", st.Measured)
	}
	ms := must[[]repo.DeltaQ](t)(db.DeltaQs(t.Context(), smallCorpus[0].URL))
	if len(ms) != 1 || !ms[0].At.Equal(t1) || !ms[0].LastFetch.Equal(t0) || ms[0].Terms != 2 {
		t.Fatalf("measurements %+v", ms)
	}
}

// week01 returns a subset of digitalgov: every page that changed or
// disappeared from week 0 to week 1, and other week-0 pages up to n.
func week01(t *testing.T, n int) (week0 []page, changed []page, gone []string) {
	c0, c1 := digitalgov(t, 0), digitalgov(t, 1)
	var others []page
	for _, p := range c0.pages {
		q, ok := c1.byURL[p.URL]
		switch {
		case !ok:
			gone = append(gone, p.URL)
			week0 = append(week0, p)
		case q.Title != p.Title || q.Text != p.Text:
			changed = append(changed, q)
			week0 = append(week0, p)
		default:
			others = append(others, p)
		}
	}
	week0 = append(week0, others[:max(0, min(len(others), n-len(week0)))]...)
	return week0, changed, gone
}

// snapshotTermScores runs Bleve's own term searcher for each term on the
// index snapshot r, under the scoring model s, and returns the score of
// every document by URL. It is what SearchInContext does for a term query,
// pinned to one snapshot: under BM25 the average field length Bleve uses
// is the field's vocabulary size summed over segments, which changes when
// segments merge, so a score is only defined for a given snapshot.
func snapshotTermScores(t *testing.T, r bindex.IndexReader, s Scoring, terms []string) map[string]map[string]float64 {
	ctx := context.WithValue(context.Background(), search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return string(s) }))
	out := map[string]map[string]float64{}
	for _, term := range terms {
		ts, err := searcher.NewTermSearcher(ctx, r, term, FieldText, 1.0, search.SearcherOptions{Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(ts.DocumentMatchPoolSize(), 0)}
		m := map[string]float64{}
		for {
			dm, err := ts.Next(sctx)
			if err != nil {
				t.Fatal(err)
			}
			if dm == nil {
				break
			}
			id, err := r.ExternalID(dm.IndexInternalID)
			if err != nil {
				t.Fatal(err)
			}
			if dm.Expl == nil || dm.Expl.Value != dm.Score {
				t.Fatalf("%q %s: explain %+v, score %v", term, id, dm.Expl, dm.Score)
			}
			m[id] = dm.Score
			sctx.DocumentMatchPool.Put(dm)
		}
		ts.Close()
		out[term] = m
	}
	return out
}

// TestMeasurementScoresEqualBleve re-indexes the pages of digitalgov that
// changed from week 0 to week 1 and checks, for every page and every
// affected workload term, that s1 is the score Bleve gives the old copy on
// the index before the page's batch and s2 the score it gives the new copy
// after it, under both scoring models; and that the stored ΔQ_A is
// Σ f_q·TermDelta. Under BM25 the pages go in many small batches, so the
// document frequencies the measurement keeps in step with the index
// (docfreq.go) are checked across batches; under TF-IDF in one batch, whose
// s2 is then also compared with an ordinary search.
func TestMeasurementScoresEqualBleve(t *testing.T) {
	week0, changed, gone := week01(t, 900)
	for _, p := range week0[len(week0)-12:] { // and some pages that went 404
		gone = append(gone, p.URL)
	}
	for _, tc := range []struct {
		s         Scoring
		batchSize int
	}{{ScoringBM25, 37}, {ScoringTFIDF, 5000}} {
		s := tc.s
		t.Run(fmt.Sprintf("%s in batches of %d: s1 and s2 are Bleve's scores before and after the batch", s, tc.batchSize), func(t *testing.T) {
			db := openRepo(t, t.TempDir())
			cfg := testConfig(s)
			cfg.BatchSize = tc.batchSize
			ix := openIndex(t, tempDir(t, "ix"), cfg, db, Options{})
			putPages(t, db, t0, week0...)
			catchUp(t, ix)

			// A workload of terms of the changed pages, old and new, with
			// terms that appear and disappear.
			terms := map[string]bool{}
			rng := rand.New(rand.NewPCG(5, 6))
			old := digitalgov(t, 0)
			for _, p := range changed {
				for _, text := range []string{IndexedText(p.Title, p.Text), IndexedText(old.byURL[p.URL].Title, old.byURL[p.URL].Text)} {
					for _, tok := range ix.Analyzer().Analyze([]byte(text)) {
						if rng.IntN(40) == 0 {
							terms[string(tok.Term)] = true
						}
					}
				}
			}
			var qs []querylog.Query
			for _, term := range slices.Sorted(maps.Keys(terms)) {
				qs = append(qs, querylog.Query{Text: term, Count: float64(1 + rng.IntN(9))})
			}
			wl := ix.SetWorkload(qs)
			if wl.Len() < 100 {
				t.Fatalf("workload of %d terms", wl.Len())
			}
			scores := map[string]map[string]map[string]float64{} // stage → term → URL → score
			ix.readerHook = func(stage string, r bindex.IndexReader) {
				scores[stage] = snapshotTermScores(t, r, s, wl.Terms())
			}
			type key struct{ url, term string }
			traces := map[key]termTrace{}
			mismatches := 0
			ix.trace = func(tr termTrace) {
				traces[key{tr.URL, tr.Term}] = tr
				b, had := scores["before"][tr.Term][tr.URL]
				a, has := scores["after"][tr.Term][tr.URL]
				if tr.Had != had || tr.Has != has {
					t.Fatalf("%s %q: had/has %v/%v, Bleve %v/%v", tr.URL, tr.Term, tr.Had, tr.Has, had, has)
				}
				if !approx(tr.S1, b, 1e-9) || !approx(tr.S2, a, 1e-9) {
					if mismatches++; mismatches < 10 {
						t.Errorf("%s %q: s1 %.15g s2 %.15g; Bleve before %.15g after %.15g", tr.URL, tr.Term, tr.S1, tr.S2, b, a)
					}
				}
			}

			putPages(t, db, t1, changed...)
			goPages(t, db, t1, gone...)
			st := catchUp(t, ix)
			if st.Measured != len(changed)+len(gone) || st.Batches != (len(changed)+len(gone)+tc.batchSize-1)/tc.batchSize {
				t.Fatalf("stats %+v; %d changed, %d gone", st, len(changed), len(gone))
			}
			if mismatches > 0 {
				t.Fatalf("%d scores differ from Bleve's", mismatches)
			}
			appear, disappear := 0, 0
			perURL := map[string][2]float64{} // Σ f·Δ, |S|
			for k, tr := range traces {
				had, has := tr.Had, tr.Has
				if !had {
					appear++
				}
				if !has {
					disappear++
				}
				f, _ := wl.Freq(k.term)
				v := perURL[k.url]
				perURL[k.url] = [2]float64{v[0] + f*tr.Delta, v[1] + 1}
			}
			if len(traces) < 500 || appear == 0 || disappear == 0 {
				t.Fatalf("%d traced terms, %d appearing, %d disappearing", len(traces), appear, disappear)
			}
			for u, v := range perURL {
				ms := must[[]repo.DeltaQ](t)(db.DeltaQs(t.Context(), u))
				if len(ms) != 1 || !approx(ms[0].Value, v[0], 1e-9*max(1, v[0])) || ms[0].Terms != int(v[1]) ||
					!ms[0].At.Equal(t1) || !ms[0].LastFetch.Equal(t0) {
					t.Fatalf("%s: stored %+v, traced Σ f·Δ = %g over %v terms", u, ms, v[0], v[1])
				}
			}
			if s == ScoringTFIDF {
				// TF-IDF statistics do not depend on the segment layout, so
				// s2 also equals what a search returns now.
				hitsOf := map[string]map[string][2]float64{}
				for k, tr := range traces {
					if !tr.Has {
						continue
					}
					hits, ok := hitsOf[k.term]
					if !ok {
						hits, _ = bleveTermScores(t, ix.bleve(), k.term)
						hitsOf[k.term] = hits
					}
					if h := hits[k.url]; !approx(tr.S2, h[0], 1e-9) || !approx(tr.S2, h[1], 1e-9) {
						t.Fatalf("%s %q: s2 %.15g; search %.15g, explain %.15g", k.url, k.term, tr.S2, h[0], h[1])
					}
				}
			}
			t.Logf("%d pages (%d gone), %d (page, term) pairs, %d appearing, %d disappearing", len(perURL), len(gone), len(traces), appear, disappear)
		})
	}
}

var errCrash = errors.New("simulated crash")

// A crash after the Bleve batch and before the repository commit leaves
// the index ahead of the watermark; reopening re-applies the batch and the
// index agrees with the repository, with each re-download measured once.
func TestCrashBeforeTheWatermarkIsCommitted(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	wl := []querylog.Query{{Text: "federal budget report", Count: 2}, {Text: "plain language", Count: 1}}
	ix, err := Open(filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Workload: wl})
	if err != nil {
		t.Fatal(err)
	}
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	wm := ix.Watermark()

	putPages(t, db, t1, page{URL: smallCorpus[0].URL, Title: "Budget report", Text: "Federal budget, revised."},
		page{URL: "https://d.test/new", Title: "New", Text: "A new page about plain language."})
	goPages(t, db, t1, smallCorpus[3].URL)
	ix.beforeCommit = func() error { return errCrash }
	if _, err := ix.CatchUp(t.Context()); !errors.Is(err, errCrash) {
		t.Fatalf("CatchUp = %v", err)
	}
	if got := must[[]byte](t)(db.Meta(watermarkKey)); readWM(t, got) != wm {
		t.Fatal("watermark committed despite the crash")
	}
	if docs := indexedDocs(t, ix); !docs[smallCorpus[0].URL].Equal(t1) {
		t.Fatal("the Bleve batch was not applied before the crash point")
	}
	ix.Close()

	ix = openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Workload: wl})
	if ix.Watermark() != wm {
		t.Fatalf("reopened at watermark %d, want %d", ix.Watermark(), wm)
	}
	st := catchUp(t, ix)
	if st.Measured != 2 { // the changed page and the gone page; the new page is a first indexing
		t.Fatalf("stats %+v", st)
	}
	agree(t, ix, db)
	for _, u := range []string{smallCorpus[0].URL, smallCorpus[3].URL} {
		if ms := must[[]repo.DeltaQ](t)(db.DeltaQs(t.Context(), u)); len(ms) != 1 {
			t.Fatalf("%s measured %d times", u, len(ms))
		}
	}
}

func readWM(t *testing.T, b []byte) uint64 {
	if len(b) != 17 {
		t.Fatalf("watermark %x", b)
	}
	return uint64(b[9])<<56 | uint64(b[10])<<48 | uint64(b[11])<<40 | uint64(b[12])<<32 |
		uint64(b[13])<<24 | uint64(b[14])<<16 | uint64(b[15])<<8 | uint64(b[16])
}

// TestIndexSurvivesKill9 runs an indexer in a child process that keeps
// writing pages (new, changed and gone) and catching up, kills it with
// SIGKILL mid-stream, restarts, and checks that the index holds exactly the
// repository's indexable pages at their current versions.
func TestIndexSurvivesKill9(t *testing.T) {
	if dir := os.Getenv("INDEX_KILL_CHILD"); dir != "" {
		killChild(dir)
		return
	}
	dir := t.TempDir()
	cmd := killtest.Child("TestIndexSurvivesKill9", "INDEX_KILL_CHILD", dir)
	rounds := killtest.KillAfter(t, cmd, false, killtest.Prefixed("round "), 25)
	if rounds < 25 {
		t.Fatalf("child completed only %d rounds", rounds)
	}
	db := openRepo(t, filepath.Join(dir, "repo"))
	ix := openIndex(t, filepath.Join(dir, "ix"), killConfig(), db, Options{Workload: killWorkload})
	catchUp(t, ix)
	agree(t, ix, db)
	if ix.Lag() != 0 {
		t.Fatalf("lag %d after catching up", ix.Lag())
	}
}

var killWorkload = []querylog.Query{{Text: "page text round", Count: 1}, {Text: "seven", Count: 2}}

func killConfig() Config {
	cfg := testConfig(ScoringBM25)
	cfg.BatchSize = 7
	return cfg
}

func killChild(dir string) {
	fail := func(err error) {
		fmt.Println("child:", err)
		os.Exit(2)
	}
	db, err := repo.Open(filepath.Join(dir, "repo"), repoConfig(), repo.Options{})
	if err != nil {
		fail(err)
	}
	ix, err := Open(filepath.Join(dir, "ix"), killConfig(), db, Options{Workload: killWorkload})
	if err != nil {
		fail(err)
	}
	var tb fakeTB
	for round := 0; ; round++ {
		at := t0.Add(time.Duration(round) * time.Hour)
		var pages []page
		var gone []string
		for i := range 20 {
			u := fmt.Sprintf("https://k.test/%d", (round*13+i*7)%150)
			if (round+i)%9 == 0 {
				gone = append(gone, u)
				continue
			}
			pages = append(pages, page{URL: u, Title: "Page " + u, Text: fmt.Sprintf("page text round %d seven %d", round, i)})
		}
		putPages(&tb, db, at, pages...)
		goPages(&tb, db, at, gone...)
		if tb.err != nil {
			fail(tb.err)
		}
		if _, err := ix.CatchUp(context.Background()); err != nil {
			fail(err)
		}
		fmt.Printf("round %d\n", round)
	}
}

// fakeTB lets the child process reuse the fixture helpers.
type fakeTB struct {
	testing.TB
	err error
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Fatalf(format string, args ...any) { f.err = fmt.Errorf(format, args...) }
func (f *fakeTB) Fatal(args ...any)                 { f.err = errors.New(fmt.Sprint(args...)) }

// A snapshot built for another workload is not trusted: the old copy is
// re-analyzed from its stored version, so its scores are still Bleve's.
func TestSnapshotOfAnotherWorkloadIsReanalyzed(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{
		Workload: []querylog.Query{{Text: "budget", Count: 1}}})
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	ix.SetWorkload([]querylog.Query{{Text: "federal spending", Count: 1}})
	before, _ := bleveTermScores(t, ix.bleve(), "spend")
	var got []termTrace
	ix.trace = func(tr termTrace) { got = append(got, tr) }
	putPages(t, db, t1, page{URL: smallCorpus[0].URL, Title: "Budget report", Text: "Nothing federal here."})
	if st := catchUp(t, ix); st.Measured != 1 {
		t.Fatalf("stats %+v", st)
	}
	var spend *termTrace
	for i := range got {
		if got[i].Term == "spend" {
			spend = &got[i]
		}
	}
	if spend == nil || !spend.Had || spend.Has || !approx(spend.S1, before[smallCorpus[0].URL][0], 1e-12) {
		t.Fatalf("trace %+v; Bleve's old score %v", got, before[smallCorpus[0].URL])
	}
}

// Deleting the index directory makes Open create a new generation that
// re-applies the whole feed, and say so (a first index over an empty
// repository has nothing to replay and says nothing of it); the
// repository's snapshots belong to the old generation, so nothing is
// measured as a re-download.
func TestRecreatedIndexReplaysTheFeedWithoutMeasuring(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	wl := []querylog.Query{{Text: "federal budget", Count: 1}}
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	const replaying = "applying the change feed from the start"
	ix, err := Open(filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Workload: wl, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), replaying) {
		t.Fatalf("a new index over an empty repository logged a replay:\n%s", log.String())
	}
	putPages(t, db, t0, smallCorpus...)
	putPages(t, db, t1, smallCorpus[0])
	catchUp(t, ix)
	ix.Close()
	if err := os.RemoveAll(filepath.Join(dir, "ix")); err != nil {
		t.Fatal(err)
	}
	ix = openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Workload: wl, Logger: logger})
	if ix.Watermark() != 0 {
		t.Fatalf("watermark %d on a new index", ix.Watermark())
	}
	if !strings.Contains(log.String(), replaying) {
		t.Fatalf("a new index over a repository with pages did not log the replay:\n%s", log.String())
	}
	st := catchUp(t, ix)
	if st.Measured != 0 || st.Changes != len(smallCorpus)+1 {
		t.Fatalf("stats %+v", st)
	}
	agree(t, ix, db)
}

func TestOpenRefusesAnotherScoringModel(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	ix, err := Open(filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	_, err = Open(filepath.Join(dir, "ix"), testConfig(ScoringTFIDF), db, Options{})
	if err == nil || !strings.Contains(err.Error(), `was built with scoring model "bm25" but index.scoring is "tf-idf"`) {
		t.Fatalf("err = %v", err)
	}
	t.Run("unless it is recreated for a rebuild", func(t *testing.T) {
		putPages(t, db, t0, smallCorpus...)
		ix := openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringTFIDF), db, Options{Recreate: true})
		if _, err := ix.Rebuild(t.Context()); err != nil {
			t.Fatal(err)
		}
		agree(t, ix, db)
		if ix.Scoring() != ScoringTFIDF || scoringOf(ix.Mapping()) != ScoringTFIDF {
			t.Fatal("the rebuilt index does not use tf-idf")
		}
	})
}

// TestOpenRefusesAnIndexOfAnotherAnalyzer: an index whose text an older
// deltaq analyzed with Bleve's plain English analyzer (no NFKC), or whose
// titles keep no word positions, is refused with the command that
// rebuilds it, and a rebuild makes it current.
func TestOpenRefusesAnIndexOfAnotherAnalyzer(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	m, err := NewMapping(ScoringBM25)
	if err != nil {
		t.Fatal(err)
	}
	m.DefaultMapping.Properties[FieldText].Fields[0].Analyzer = en.AnalyzerName
	bi, err := bleve.NewUsing(filepath.Join(dir, "ix"), m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	bi.Close()
	_, err = Open(filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{})
	if err == nil || !strings.Contains(err.Error(), `analyzes "text" with "en", not "deltaq_en"`) || !strings.Contains(err.Error(), "deltaq index rebuild") {
		t.Fatalf("err = %v; want the analyzer and the rebuild named", err)
	}
	// Nor is one that keeps no positions of title words.
	m, err = NewMapping(ScoringBM25)
	if err != nil {
		t.Fatal(err)
	}
	m.DefaultMapping.Properties[FieldTitle].Fields[0].IncludeTermVectors = false
	bi, err = bleve.NewUsing(filepath.Join(dir, "ix2"), m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	bi.Close()
	_, err = Open(filepath.Join(dir, "ix2"), testConfig(ScoringBM25), db, Options{})
	if err == nil || !strings.Contains(err.Error(), `keeps no word positions of "title"`) || !strings.Contains(err.Error(), "deltaq index rebuild") {
		t.Fatalf("err = %v; want the title's positions and the rebuild named", err)
	}
	putPages(t, db, t0, smallCorpus...)
	ix := openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Recreate: true})
	if _, err := ix.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a := ix.Mapping().AnalyzerNameForPath(FieldText); a != AnalyzerName || !titlePositions(ix.Mapping()) {
		t.Fatalf("rebuilt index analyzes text with %q", a)
	}
	agree(t, ix, db)
}

func TestOpenRefusesADirectoryThatIsNotAnIndex(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{Recreate: true})
	if err == nil || !strings.Contains(err.Error(), "index: open") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal("a directory that is not an index was touched")
	}
}

// TestADamagedIndexIsRebuiltFromTheRepository damages a built index as a
// full disk or a stray write or delete would: Open refuses it as
// ErrDamaged, where Recreate and Rebuild used to fail on it the same way;
// with them the index is built again and agrees with the repository.
func TestADamagedIndexIsRebuiltFromTheRepository(t *testing.T) {
	for name, damage := range map[string]func(t *testing.T, dir string){
		"empty metadata": func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "index_meta.json"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"no store": func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "store")); err != nil {
				t.Fatal(err)
			}
		},
		"corrupt applied sequence": func(t *testing.T, dir string) {
			// Without unsafe_batch, which the index's stored configuration
			// holds: SetInternal returns once the value is on disk.
			bi, err := bleve.OpenUsing(dir, map[string]any{"unsafe_batch": false})
			if err != nil {
				t.Fatal(err)
			}
			err = bi.SetInternal(appliedKey, []byte("bad"))
			if cerr := bi.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
		},
		// Bytes overwritten inside a segment, as a stray write or a bad
		// sector leaves them: the file keeps its length and its footer,
		// and Bleve opens it, so only its checksum tells.
		"overwritten segment bytes": func(t *testing.T, dir string) {
			segdamage.Stray(t, dir)
		},
		"garbage root": func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "store", "root.bolt"), []byte("not a bolt database"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := openRepo(t, filepath.Join(dir, "repo"))
			ixDir := filepath.Join(dir, "ix")
			ix, err := Open(ixDir, testConfig(ScoringBM25), db, Options{})
			if err != nil {
				t.Fatal(err)
			}
			putPages(t, db, t0, smallCorpus...)
			catchUp(t, ix)
			ix.Close()
			damage(t, ixDir)

			if _, err := Open(ixDir, testConfig(ScoringBM25), db, Options{}); !errors.Is(err, ErrDamaged) {
				t.Fatalf("open of a damaged index: err = %v, want ErrDamaged", err)
			}
			ix = openIndex(t, ixDir, testConfig(ScoringBM25), db, Options{Recreate: true})
			if _, err := ix.Rebuild(t.Context()); err != nil {
				t.Fatal(err)
			}
			agree(t, ix, db)
		})
	}
}

func TestRebuild(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	wl := []querylog.Query{{Text: "federal budget", Count: 1}}
	ix := openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Workload: wl})
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	goPages(t, db, t1, smallCorpus[4].URL) // not yet applied
	gen := ix.generation
	st, err := ix.Rebuild(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != len(smallCorpus)-1 || ix.Watermark() != db.LastChangeSeq() || ix.generation == gen {
		t.Fatalf("stats %+v, watermark %d, generation %x → %x", st, ix.Watermark(), gen, ix.generation)
	}
	agree(t, ix, db)
	ix.Close()
	ix = openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{Workload: wl})
	if ix.Watermark() != db.LastChangeSeq() {
		t.Fatalf("reopened after the rebuild at watermark %d, want %d", ix.Watermark(), db.LastChangeSeq())
	}
	q, _ := ParseQuery("budget", ix.cfg.Limits())
	if res, err := ix.Search(t.Context(), q, 0, 10); err != nil || res.Total != 2 {
		t.Fatalf("search after rebuild: %+v, %v", res, err)
	}
	// The rebuilt index's snapshots let the next re-download be measured.
	putPages(t, db, t1, page{URL: smallCorpus[0].URL, Title: "Budget", Text: "federal"})
	if st := catchUp(t, ix); st.Measured != 1 {
		t.Fatalf("stats %+v", st)
	}
	ix.Close()
	ix = openIndex(t, filepath.Join(dir, "ix"), testConfig(ScoringBM25), db, Options{})
	if ix.Watermark() != db.LastChangeSeq() {
		t.Fatal("the rebuilt index's watermark did not survive reopening")
	}
	agree(t, ix, db)
}

func TestRunFollowsTheFeed(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	passes := make(chan Stats)
	ix.caughtUp = func(st Stats) { passes <- st }
	notify, stop := runIndex(t, ix)
	<-passes // the first pass, on an empty feed
	putPages(t, db, t0, smallCorpus...)
	notify <- struct{}{}
	if st := <-passes; st.Indexed != len(smallCorpus) {
		t.Fatalf("stats %+v", st)
	}
	stop()
	agree(t, ix, db)
}

// runIndex starts ix.Run, woken by notifications alone (set its hooks
// before), and returns the notification channel and a stop that cancels
// Run and checks that it ended without an error.
func runIndex(t *testing.T, ix *Index) (notify chan<- struct{}, stop func()) {
	t.Helper()
	ix.cfg.PollInterval = time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	wake := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx, wake) }()
	var once sync.Once
	var err error
	end := func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	// Should the test fail first, Run still ends before the repository
	// closes: this cleanup runs before those registered earlier.
	t.Cleanup(func() { end() })
	return wake, func() {
		t.Helper()
		if err := end(); err != nil {
			t.Fatalf("Run = %v after cancel", err)
		}
	}
}

// serveSmallCorpus indexes smallCorpus under Run and returns once the
// text field of that pass is built; warmed then tells of later passes.
// It keeps one at most: Run may make passes a test does not ask for (a
// merge found by a search), and must not block on them.
func serveSmallCorpus(t *testing.T, ix *Index, db *repo.DB) (notify chan<- struct{}, warmed <-chan struct{}, stop func()) {
	t.Helper()
	w := make(chan struct{}, 1)
	ix.warmed = func() {
		select {
		case w <- struct{}{}:
		default:
		}
	}
	putPages(t, db, t0, smallCorpus...)
	notify, stop = runIndex(t, ix)
	<-w
	return notify, w, stop
}

// A serving index builds each new snapshot's text field as it follows the
// feed, so that no search waits for it: after Run's pass over a batch,
// with no search made, the text field holds the batch's pages.
func TestRunBuildsTheTextFieldBeforeASearch(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	_, _, stop := serveSmallCorpus(t, ix, db)
	ix.texts.mu.Lock()
	st, built := ix.texts.cur, ix.texts.built
	ix.texts.mu.Unlock()
	if st == nil {
		t.Errorf("after the pass no text field is built (%d builds), want one of the %d pages indexed", built, len(smallCorpus))
	} else if st.n != uint64(len(smallCorpus)) {
		t.Errorf("after the pass the text field holds %d pages, want the %d indexed", st.n, len(smallCorpus))
	}
	stop()
}

// A serving index's searches do not wait for the text field of a new
// snapshot: while Run builds it, they search the last snapshot built, and
// once it is built they find the new pages. Outside Run a search after
// CatchUp finds them at once.
func TestRunSearchesTheLastSnapshotBuiltDuringABuild(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	var hold atomic.Bool
	building, release := make(chan struct{}), make(chan struct{})
	var released sync.Once
	unblock := func() { released.Do(func() { close(release) }) }
	t.Cleanup(unblock) // a failed test must not leave the build blocked: Close waits for it
	ix.beforeBuild = func() error {
		if hold.Load() {
			select {
			case building <- struct{}{}:
			case <-release:
			}
			<-release
		}
		return nil
	}
	notify, warmed, stop := serveSmallCorpus(t, ix, db)
	found := func(word string) int {
		t.Helper()
		q, err := ParseQuery(word, ix.cfg.Limits())
		if err != nil {
			t.Fatal(err)
		}
		type answer struct {
			res Result
			err error
		}
		done := make(chan answer, 1)
		go func() {
			res, err := ix.Search(t.Context(), q, 0, 10)
			done <- answer{res, err}
		}()
		select {
		case a := <-done:
			if a.err != nil {
				t.Fatalf("search %q: %v", word, a.err)
			}
			return int(a.res.Total)
		case <-time.After(time.Minute):
			t.Fatalf("search %q waited for the build under way", word)
			return 0
		}
	}
	if n := found("budget"); n != 3 {
		t.Fatalf("budget: %d pages, want 3", n)
	}

	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(ix.Collector()); err != nil {
		t.Fatal(err)
	}
	hold.Store(true)
	putPages(t, db, t1, page{URL: "https://d.test/zebra", Title: "Zebra", Text: "A zebra crossing on a federal road."})
	notify <- struct{}{}
	<-building // Run has indexed the page and builds the new snapshot's text field
	before := counterValue(t, reg, "deltaq_index_searches_on_last_built_total")
	if n := found("zebra"); n != 0 {
		t.Errorf("during the build zebra finds %d pages, want 0 (the last snapshot built)", n)
	}
	if n := found("budget"); n != 3 {
		t.Errorf("during the build budget finds %d pages, want the last snapshot's 3", n)
	}
	if n := counterValue(t, reg, "deltaq_index_searches_on_last_built_total") - before; n != 2 {
		t.Errorf("%v searches counted as answered from the last snapshot built, want the 2 made during the build", n)
	}
	hold.Store(false)
	unblock()
	deadline := time.Now().Add(time.Minute)
	for found("zebra") == 0 && time.Now().Before(deadline) {
		<-warmed
	}
	if n := found("zebra"); n != 1 {
		t.Errorf("after the build zebra finds %d pages, want 1", n)
	}
	stop()

	putPages(t, db, t1.Add(time.Hour), page{URL: "https://d.test/okapi", Title: "Okapi", Text: "An okapi, not a zebra."})
	catchUp(t, ix)
	if n := found("okapi"); n != 1 {
		t.Errorf("after CatchUp outside Run okapi finds %d pages, want 1", n)
	}
}

// After a build fails, a serving index's searches do not go on with the
// last snapshot as if nothing were wrong: they build the new one
// themselves, and report the error while it recurs.
func TestRunSearchesReportAFailedBuild(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	broken := errors.New("segment unreadable")
	var failing atomic.Bool
	failed := make(chan struct{}, 1)
	ix.beforeBuild = func() error {
		if failing.Load() {
			select {
			case failed <- struct{}{}:
			default:
			}
			return broken
		}
		return nil
	}
	notify, _, stop := serveSmallCorpus(t, ix, db)
	defer stop()
	q, err := ParseQuery("zebra", ix.cfg.Limits())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := ix.Search(t.Context(), q, 0, 10); err != nil || res.Total != 0 {
		t.Fatalf("before: %d pages, %v", res.Total, err)
	}
	failing.Store(true)
	putPages(t, db, t1, page{URL: "https://d.test/zebra", Title: "Zebra", Text: "A zebra crossing on a federal road."})
	notify <- struct{}{}
	<-failed // Run's build
	if _, err := ix.Search(t.Context(), q, 0, 10); !errors.Is(err, broken) {
		t.Errorf("search after a failed build: %v, want %v", err, broken)
	}
	failing.Store(false)
	if res, err := ix.Search(t.Context(), q, 0, 10); err != nil || res.Total != 1 {
		t.Errorf("search once builds work again: %d pages, %v; want the new page", res.Total, err)
	}
}

func TestRefreshPopularityKeepsTheIndexedCopy(t *testing.T) {
	db := openRepo(t, t.TempDir())
	pop := map[string]float64{}
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{
		Workload:   []querylog.Query{{Text: "budget", Count: 1}},
		Popularity: func(_ context.Context, u string) (float64, error) { return pop[u], nil },
	})
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	putPages(t, db, t1, page{URL: smallCorpus[0].URL, Title: "Budget", Text: "budget budget"}) // not applied yet
	pop[smallCorpus[0].URL] = 0.75
	if st, err := ix.RefreshPopularity(t.Context(), []string{smallCorpus[0].URL, "https://a.test/unknown"}); err != nil || st.Indexed != 1 {
		t.Fatalf("RefreshPopularity = %+v, %v", st, err)
	}
	q, _ := ParseQuery("budget", ix.cfg.Limits())
	shown, err := ix.Shown(t.Context(), q, []string{smallCorpus[0].URL})
	if err != nil || len(shown) != 1 {
		t.Fatalf("shown %+v, %v", shown, err)
	}
	if h := shown[0]; h.URL != smallCorpus[0].URL || h.Popularity != 0.75 || !h.FetchedAt.Equal(t0) {
		t.Fatalf("shown %+v, %v", shown, err)
	}
	if st := catchUp(t, ix); st.Measured != 1 {
		t.Fatalf("the pending change was not measured after the refresh: %+v", st)
	}
}

// TestAnIndexOpenedOlderThanItsWatermarkCatchesUp loses the newest
// segment of an index. Bleve then opens the snapshot before it, without an
// error, and the batches after that snapshot are missing from the index
// though the repository's watermark names them as applied. Open must see
// that from the sequence each Bleve batch records, and CatchUp re-apply
// them.
func TestAnIndexOpenedOlderThanItsWatermarkCatchesUp(t *testing.T) {
	keptSnapshots = 3 // the snapshot of the first batch stays on disk
	defer func() { keptSnapshots = 0 }()
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	ixDir := filepath.Join(dir, "ix")
	opts := Options{MergeOnlyOnCompact: true} // one segment per batch, none merged
	ix := openIndex(t, ixDir, testConfig(ScoringBM25), db, opts)
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	putPages(t, db, t1, page{URL: smallCorpus[0].URL, Title: "Budget report", Text: "Federal budget, revised."},
		page{URL: "https://d.test/new", Title: "New", Text: "A new page about plain language."})
	goPages(t, db, t1, smallCorpus[3].URL)
	catchUp(t, ix)
	wm := ix.Watermark()
	ix.Close()

	segments, err := filepath.Glob(filepath.Join(ixDir, "store", "*.zap"))
	if err != nil || len(segments) < 2 {
		t.Fatalf("segments %v, %v: want one per batch", segments, err)
	}
	slices.Sort(segments) // Bleve names them by a growing hexadecimal id of fixed width
	if err := os.Remove(segments[len(segments)-1]); err != nil {
		t.Fatal(err)
	}

	ix = openIndex(t, ixDir, testConfig(ScoringBM25), db, opts)
	if docs := indexedDocs(t, ix); docs[smallCorpus[0].URL].Equal(t1) {
		t.Fatal("the damaged segment was read: the test damaged nothing Bleve needs")
	}
	if ix.Watermark() >= wm {
		t.Fatalf("reopened at watermark %d though the index lost the batch up to %d", ix.Watermark(), wm)
	}
	catchUp(t, ix)
	agree(t, ix, db)
	if ix.Watermark() != wm {
		t.Fatalf("watermark %d after catching up, want %d", ix.Watermark(), wm)
	}
}

// TestATruncatedSegmentIsDamageNotAPanic cuts every segment file of an
// index short, as a full disk leaves them. zapx reads such a file out of
// bounds and panics; Open reports ErrDamaged, and an index rebuild run
// afterwards (here on a copy of the directory, as a new process sees it:
// the panic skipped Bleve's cleanup, which keeps this process's lock on
// it) makes the index again.
func TestATruncatedSegmentIsDamageNotAPanic(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	ixDir := filepath.Join(dir, "ix")
	ix := openIndex(t, ixDir, testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	ix.Close()
	segments, err := filepath.Glob(filepath.Join(ixDir, "store", "*.zap"))
	if err != nil || len(segments) == 0 {
		t.Fatalf("segments %v, %v", segments, err)
	}
	for _, s := range segments {
		if err := os.WriteFile(s, []byte("cut"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	_, err = Open(ixDir, testConfig(ScoringBM25), db, Options{})
	if !errors.Is(err, ErrDamaged) || strings.Count(err.Error(), ixDir) != 1 {
		t.Fatalf("open of an index with truncated segments: err = %v, want ErrDamaged naming the directory once", err)
	}
	again := filepath.Join(dir, "ix-again")
	if err := os.CopyFS(again, os.DirFS(ixDir)); err != nil {
		t.Fatal(err)
	}
	ix = openIndex(t, again, testConfig(ScoringBM25), db, Options{Recreate: true})
	if _, err := ix.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	agree(t, ix, db)
}
