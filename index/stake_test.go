package index

import (
	"log/slog"
	"math"
	"testing"

	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// stakeFixture indexes three pages under the workload budget ×3, rocket
// ×1, with histograms: top ranks first for budget, second holds both
// terms, none neither. Segments merge only on Compact: a batch's ΔQ_A
// and a later view's scores then see the same BM25 average length, which
// a background merge finishing in between would move.
func stakeFixture(t *testing.T) (db *repo.DB, ix *Index, top, second, none page) {
	t.Helper()
	db = openRepo(t, t.TempDir())
	ix = openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{
		MergeOnlyOnCompact: true,
		Workload:           []querylog.Query{{Text: "budget", Count: 3}, {Text: "rocket", Count: 1}}})
	top = page{URL: "https://a.example/top", Title: "t", Text: "budget budget budget report"}
	second = page{URL: "https://a.example/second", Title: "t", Text: "the budget is one word among many others in a longer text about rocket launches"}
	none = page{URL: "https://a.example/none", Title: "t", Text: "nothing searchers ask for"}
	putPages(t, db, t0, top, second, none)
	catchUp(t, ix)
	if err := ix.RebuildHistograms(t.Context()); err != nil {
		t.Fatal(err)
	}
	return db, ix, top, second, none
}

// On three pages ranked exactly by the histograms (one or two results per
// term), a page's stake is Σ f_q·I(rank) with I(r) = r^(−3/2).
func TestStakeIsTheInspectionWeightOfThePagesRanks(t *testing.T) {
	db, ix, top, second, none := stakeFixture(t)
	view := must[*Stakes](t)(ix.Stakes())
	stake := func(url string) (float64, bool) {
		t.Helper()
		s, ok, err := view.Of(url)
		if err != nil {
			t.Fatal(err)
		}
		return s, ok
	}
	i := func(r float64) float64 { return math.Pow(r, -1.5) }
	for _, c := range []struct {
		url  string
		want float64
	}{
		{top.URL, 3 * i(1)},           // budget, rank 1
		{second.URL, 3*i(2) + 1*i(1)}, // budget rank 2, rocket rank 1
		{none.URL, 0},                 // indexed, no workload term
	} {
		got, ok := stake(c.url)
		if !ok || !approx(got, c.want, 1e-9) {
			t.Errorf("stake(%s) = %v, %v; want %v, true", c.url, got, ok, c.want)
		}
	}
	if got, ok := stake("https://a.example/never-indexed"); ok || got != 0 {
		t.Errorf("a page never indexed: %v, %v; want 0, false", got, ok)
	}

	// The top page loses "budget", so the second takes its rank: the
	// function's view follows the batch, the view taken before does not.
	fn := ix.StakeFunc(slog.Default())
	before := fn(second.URL)
	putPages(t, db, t1, page{URL: top.URL, Title: "t", Text: "a report on spending"})
	catchUp(t, ix)
	if err := ix.RebuildHistograms(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := stake(second.URL); !approx(got, before, 1e-9) {
		t.Errorf("the old view moved: %v, was %v", got, before)
	}
	after, now := fn(second.URL), fn(top.URL)
	if want := 3*i(1) + 1*i(1); !approx(after, want, 1e-9) || now != 0 {
		t.Errorf("after the batch: second %v (want %v), top %v (want 0)", after, want, now)
	}
}

// Without a workload nothing has a stake: every page weighs 1, as with no
// importance at all.
func TestStakeWithoutWorkloadWeighsEveryPageOne(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, page{URL: "https://a.example/p", Title: "t", Text: "budget"})
	catchUp(t, ix)
	if _, ok, err := must[*Stakes](t)(ix.Stakes()).Of("https://a.example/p"); ok || err != nil {
		t.Fatalf("Of without a workload: ok %v, err %v", ok, err)
	}
	if got := ix.StakeFunc(slog.Default())("https://a.example/p"); got != 1 {
		t.Fatalf("StakeFunc without a workload = %v, want 1", got)
	}
}

// A page's arrival value is the ΔQ_A the index measures for a re-download
// whose old copy held no workload term: the same estimate with no old
// copy, so a new page's first indexing and a re-fetch are valued in the
// same units (frontier/split.go).
func TestArrivalIsTheDeltaQOfACopyFromNothing(t *testing.T) {
	db, ix, _, _, blank := stakeFixture(t)
	fn := ix.ArrivalFunc(slog.Default())
	if got := fn(blank.URL); got != 0 {
		t.Fatalf("arrival of a page without workload terms = %v, want 0", got)
	}
	// The blank page now holds both terms; the histograms stay those the
	// measurement used.
	putPages(t, db, t1, page{URL: blank.URL, Title: "t", Text: "budget rocket budget rocket"})
	catchUp(t, ix)
	ms, err := db.DeltaQs(t.Context(), blank.URL)
	if err != nil || len(ms) != 1 {
		t.Fatalf("ΔQ_A measurements = %v, %v; want one", ms, err)
	}
	got, ok, err := must[*Stakes](t)(ix.Stakes()).Arrival(blank.URL)
	if err != nil || !ok {
		t.Fatalf("Arrival: ok %v, err %v", ok, err)
	}
	if ms[0].Value <= 0 || !approx(got, ms[0].Value, 1e-9) {
		t.Fatalf("arrival %v, measured ΔQ_A %v: want equal and positive", got, ms[0].Value)
	}
	if fn(blank.URL) != got {
		t.Fatalf("ArrivalFunc = %v, Stakes.Arrival = %v", fn(blank.URL), got)
	}
	if got := fn("https://a.example/never-indexed"); got != 0 {
		t.Fatalf("arrival of a page never indexed = %v, want 0", got)
	}
}
