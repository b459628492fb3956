package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/killtest"
)

func testConfig() Config {
	return Config{VersionsKept: 2, FetchLogKept: 3, StatsKept: 2, CacheBytes: 8 << 20}
}

func openMem(t *testing.T) *DB {
	t.Helper()
	db, err := Open("", testConfig(), Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func commit(t *testing.T, db *DB, fn func(b *Batch) error) {
	t.Helper()
	b := db.NewBatch(t.Context())
	defer b.Close()
	if err := fn(b); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

var t0 = time.Date(2023, 1, 30, 12, 0, 0, 0, time.UTC)

func TestPageRoundTrip(t *testing.T) {
	db := openMem(t)
	want := Page{
		URL: "http://digitalgov-2023.test/news/", State: StateLive, LastOutcome: OutcomeOK,
		HTTPStatus: 200, Depth: 2, Source: "http://digitalgov-2023.test/",
		FirstSeen: t0, LastFetch: t0.Add(time.Hour), LastChange: t0.Add(time.Hour),
		Root: "http://digitalgov-2023.test/news/", Fetches: 3, Changes: 1, ETag: `"abc"`, LastModified: "Mon, 30 Jan 2023 00:00:00 GMT",
		ContentType: "text/html", ContentHash: 1<<63 + 5, Signature: []byte{1, 2, 3},
		Title: "News — digital.gov", NoIndex: true, NoFollow: false, RedirectTo: "",
		Version: t0.Add(time.Hour), Hops: 2, Failures: 1, SitemapLastMod: t0,
	}
	commit(t, db, func(b *Batch) error { return b.PutPage(&want) })
	got, err := db.Page(want.URL)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if _, err := db.Page("http://digitalgov-2023.test/absent/"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent page: err = %v, want ErrNotFound", err)
	}
}

func TestCorruptValueIsAnErrorNotAPanic(t *testing.T) {
	for n := range 40 {
		p := Page{URL: "http://a.test/x", Title: "t", Signature: []byte("sig")}
		b := p.encode()
		if n >= len(b) {
			break
		}
		if _, err := decodePage(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: err = %v, want ErrCorrupt", n, err)
		}
	}
	if _, err := decodePage([]byte{9, 1, 2}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unknown format version: err = %v", err)
	}
}

func TestVersionsKeepTheNewestN(t *testing.T) {
	db := openMem(t)
	u := "http://tldr-en.test/common/tar.html"
	for i := range 4 {
		commit(t, db, func(b *Batch) error {
			add := b.AddVersion
			if i == 0 {
				add = b.AddFirstVersion // nothing stored yet
			}
			return add(u, &Version{
				FetchedAt: t0.Add(time.Duration(i) * time.Hour), ContentType: "text/html",
				Title: fmt.Sprint("v", i), Text: strings.Repeat(fmt.Sprint("text ", i), 100),
				Body: []byte(fmt.Sprintf("<html>%d</html>", i)),
			})
		})
	}
	vs, err := db.Versions(t.Context(), u, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Title != "v3" || vs[1].Title != "v2" {
		t.Fatalf("versions = %d (%v), want v3, v2", len(vs), titles(vs))
	}
	if string(vs[0].Body) != "<html>3</html>" || !strings.HasPrefix(vs[0].Text, "text 3") {
		t.Fatalf("content not restored: body %q text %.10q", vs[0].Body, vs[0].Text)
	}
	latest, err := db.LatestVersion(t.Context(), u)
	if err != nil || latest.Title != "v3" {
		t.Fatalf("LatestVersion = %v, %v", latest.Title, err)
	}
	at, err := db.VersionAt(u, t0.Add(2*time.Hour))
	if err != nil || at.Title != "v2" {
		t.Fatalf("VersionAt = %v, %v", at.Title, err)
	}
}

func titles(vs []Version) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Title)
	}
	return out
}

func TestFetchLogKeepsTheNewestAndReadsOldestFirst(t *testing.T) {
	db := openMem(t)
	u := "http://tldr-en.test/"
	for i := range 5 {
		commit(t, db, func(b *Batch) error {
			log := b.LogFetch
			if i == 0 {
				log = b.LogFirstFetch // nothing logged yet
			}
			return log(u, &FetchRecord{At: t0.Add(time.Duration(i) * time.Minute), Outcome: OutcomeOK, HTTPStatus: 200 + i, Difference: float64(i) / 10})
		})
	}
	log, err := db.FetchLog(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for _, r := range log {
		statuses = append(statuses, r.HTTPStatus)
	}
	if !slices.Equal(statuses, []int{202, 203, 204}) {
		t.Fatalf("fetch log statuses = %v, want [202 203 204]", statuses)
	}
}

func TestOutLinksReplaceAndInLinksFollow(t *testing.T) {
	db := openMem(t)
	a, b1, c, d := "http://s.test/a", "http://s.test/b", "http://s.test/c", "http://t.test/d"
	commit(t, db, func(b *Batch) error {
		return b.SetFirstOutLinks(a, []Link{{URL: b1}, {URL: c}, {URL: c, Kind: LinkFeed}}) // none stored yet
	})
	commit(t, db, func(b *Batch) error {
		return b.SetOutLinks(a, []Link{{URL: c, Kind: LinkCanonical}, {URL: d}})
	})
	out, err := db.OutLinks(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{{URL: c, Kind: LinkCanonical}, {URL: d}}
	if !slices.Equal(out, want) {
		t.Fatalf("out-links = %v, want %v", out, want)
	}
	for _, tc := range []struct {
		dst  string
		want []string
	}{{b1, nil}, {c, []string{a}}, {d, []string{a}}} {
		in, err := db.InLinks(t.Context(), tc.dst)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(in, tc.want) {
			t.Errorf("in-links of %s = %v, want %v", tc.dst, in, tc.want)
		}
	}
	var all [][2]string
	for l, err := range db.Links(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, l)
	}
	if len(all) != 2 {
		t.Fatalf("Links yielded %v, want 2 links", all)
	}
}

func TestHostPagesScanOnlyThatHost(t *testing.T) {
	db := openMem(t)
	urls := []string{"http://a.test/1", "https://a.test/2", "http://b.a.test/3", "http://a.test:8080/4", "http://z.test/5"}
	commit(t, db, func(b *Batch) error {
		for _, u := range urls {
			if err := b.PutPage(&Page{URL: u}); err != nil {
				return err
			}
		}
		return nil
	})
	var got []string
	for p, err := range db.HostPages(t.Context(), "a.test") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.URL)
	}
	if !slices.Equal(got, []string{"http://a.test/1", "https://a.test/2"}) {
		t.Fatalf("HostPages(a.test) = %v", got)
	}
	n := 0
	for _, err := range db.Pages(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(urls) {
		t.Fatalf("Pages yielded %d, want %d", n, len(urls))
	}
}

func TestQueueIsOrderedByDueTimePerHostAndClass(t *testing.T) {
	db := openMem(t)
	entries := []struct {
		url    string
		reason Reason
		due    time.Time
	}{
		{"http://a.test/late", ReasonLink, t0.Add(3 * time.Hour)},
		{"http://a.test/early", ReasonLink, t0},
		{"http://b.test/x", ReasonLink, t0},
		{"http://a.test/mid", ReasonSeed, t0.Add(time.Hour)},
		{"http://a.test/re", ReasonRecrawl, t0.Add(-time.Hour)},
	}
	commit(t, db, func(b *Batch) error {
		for _, e := range entries {
			if _, err := b.Enqueue(&QueueEntry{URL: e.url, Reason: e.reason, Enqueued: t0}, e.due); err != nil {
				return err
			}
		}
		return nil
	})
	urls := func(class QueueClass, limit int) ([]string, []QueueItem) {
		var got []string
		var items []QueueItem
		for it, err := range db.Queue(t.Context(), "a.test", class, limit) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, it.URL)
			items = append(items, it)
		}
		return got, items
	}
	got, items := urls(ClassNew, 0)
	if !slices.Equal(got, []string{"http://a.test/early", "http://a.test/mid", "http://a.test/late"}) {
		t.Fatalf("new-class queue of a.test = %v", got)
	}
	if !items[1].Due.Equal(t0.Add(time.Hour)) || items[1].Reason != ReasonSeed || !QueueKeyDue(string(items[1].Key())).Equal(items[1].Due) {
		t.Fatalf("item = %+v, want due +1h and reason seed", items[1])
	}
	if got, _ := urls(ClassNew, 2); len(got) != 2 {
		t.Fatalf("limit 2 yielded %v", got)
	}
	var after []string
	for it, err := range db.QueueAfter(t.Context(), "a.test", ClassNew, items[0].Key(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		after = append(after, it.URL)
	}
	if !slices.Equal(after, []string{"http://a.test/mid", "http://a.test/late"}) {
		t.Fatalf("new-class queue of a.test after %q = %v", items[0].URL, after)
	}
	if got, _ := urls(ClassRecrawl, 0); !slices.Equal(got, []string{"http://a.test/re"}) {
		t.Fatalf("recrawl-class queue of a.test = %v", got)
	}
	n := 0
	for _, err := range db.AllQueued(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(entries) {
		t.Fatalf("AllQueued yielded %d, want %d", n, len(entries))
	}
	commit(t, db, func(b *Batch) error { return b.Dequeue(items[0].Key()) })
	if got, _ := urls(ClassNew, 0); len(got) != 2 {
		t.Fatalf("after dequeue: %v, want 2 entries", got)
	}
}

func TestChangeFeedIsOrderedAndSurvivesReopen(t *testing.T) {
	fs := vfs.NewMem()
	db, err := Open("db", testConfig(), Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		commit(t, db, func(b *Batch) error {
			b.AppendChange(fmt.Sprintf("http://a.test/%d", i), ChangeUpsert, t0)
			if i == 1 {
				b.AppendChange("http://a.test/gone", ChangeDelete, t0)
			}
			return nil
		})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open("db", testConfig(), Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.LastChangeSeq(); got != 4 {
		t.Fatalf("LastChangeSeq after reopen = %d, want 4", got)
	}
	commit(t, db, func(b *Batch) error { b.AppendChange("http://a.test/after", ChangeUpsert, t0); return nil })
	cs, err := db.Changes(t.Context(), 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	var urls []string
	for _, c := range cs {
		seqs = append(seqs, c.Seq)
		urls = append(urls, c.URL)
	}
	if !slices.Equal(seqs, []uint64{3, 4, 5}) || urls[1] != "http://a.test/2" || urls[2] != "http://a.test/after" {
		t.Fatalf("changes after 2: seqs %v urls %v", seqs, urls)
	}
	if cs[0].Kind != ChangeDelete {
		t.Fatalf("change 3 kind = %v, want delete", cs[0].Kind)
	}
}

func TestStatsKeepAWindow(t *testing.T) {
	db := openMem(t)
	u := "http://a.test/p"
	for i := range 3 {
		commit(t, db, func(b *Batch) error {
			return b.PutDeltaQ(u, &DeltaQ{At: t0.Add(time.Duration(i+1) * time.Hour), LastFetch: t0.Add(time.Duration(i) * time.Hour), Value: float64(i), Terms: i})
		})
	}
	commit(t, db, func(b *Batch) error {
		return b.AddDiscoveryYield(u, &DiscoveryYield{At: t0, New: []string{"http://a.test/n1", "http://a.test/n2"}})
	})
	commit(t, db, func(b *Batch) error {
		return b.AddDiscoveryYield(u, &DiscoveryYield{At: t0, New: []string{"http://a.test/n3"}})
	})
	ms, err := db.DeltaQs(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Value != 1 || ms[1].Value != 2 || !ms[1].LastFetch.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("DeltaQs = %+v, want the newest two", ms)
	}
	ys, err := db.DiscoveryYields(t.Context(), u)
	if err != nil || len(ys) != 1 || len(ys[0].New) != 3 {
		t.Fatalf("DiscoveryYields = %+v, %v", ys, err)
	}
}

func TestBatchReadsItsOwnWrites(t *testing.T) {
	db := openMem(t)
	b := db.NewBatch(t.Context())
	defer b.Close()
	if err := b.PutPage(&Page{URL: "http://a.test/new"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Page("http://a.test/new"); err != nil {
		t.Fatalf("batch does not see its own page: %v", err)
	}
	if _, err := db.Page("http://a.test/new"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("uncommitted page visible outside the batch: %v", err)
	}
}

func TestBucketsAndMeta(t *testing.T) {
	db := openMem(t)
	commit(t, db, func(b *Batch) error {
		return errors.Join(
			b.PutBucket("ads", "ad/1", []byte("one")),
			b.PutBucket("ads", "ad/2", []byte("two")),
			b.PutBucket("ads", "adv/1", []byte("x")),
			b.PutBucket("rank", "ad/9", []byte("other bucket")),
			b.PutMeta("index.watermark", []byte{7}),
		)
	})
	var keys []string
	for kv, err := range db.BucketScan(t.Context(), "ads", "ad/") {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(kv[0]))
	}
	if !slices.Equal(keys, []string{"ad/1", "ad/2"}) {
		t.Fatalf("BucketScan(ads, ad/) = %v", keys)
	}
	// A page after a key: the keys after it under the prefix, not it.
	for after, want := range map[string][]string{"": {"ad/1", "ad/2"}, "0": {"ad/1", "ad/2"}, "1": {"ad/2"}, "2": nil} {
		var got []string
		for kv, err := range db.BucketScanAfter(t.Context(), "ads", "ad/", after) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(kv[0]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("BucketScanAfter(ads, ad/, %q) = %v, want %v", after, got, want)
		}
	}
	if v, err := db.Meta("index.watermark"); err != nil || !bytes.Equal(v, []byte{7}) {
		t.Fatalf("Meta = %v, %v", v, err)
	}
	commit(t, db, func(b *Batch) error { return b.DeleteBucket("ads", "ad/1") })
	if _, err := db.Bucket("ads", "ad/1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted bucket key: err = %v", err)
	}
}

func TestScanStopsOnCancelledContext(t *testing.T) {
	db := openMem(t)
	commit(t, db, func(b *Batch) error {
		for i := range 3000 {
			if err := b.PutPage(&Page{URL: fmt.Sprintf("http://a.test/%d", i)}); err != nil {
				return err
			}
		}
		return nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var last error
	n := 0
	for _, err := range db.Pages(ctx) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if !errors.Is(last, context.Canceled) || n >= 3000 {
		t.Fatalf("scan under a cancelled context: %d pages, err %v", n, last)
	}
}

// TestCommittedBatchesSurviveKill9 runs a writer in a child process, kills
// it with SIGKILL mid-stream, and checks that every batch the child reported
// as committed is there after reopening.
func TestCommittedBatchesSurviveKill9(t *testing.T) {
	if os.Getenv("REPO_KILL_CHILD") != "" {
		killChild()
		return
	}
	dir := t.TempDir()
	cmd := killtest.Child("TestCommittedBatchesSurviveKill9", "REPO_KILL_CHILD", dir)
	acked := killtest.KillAfter(t, cmd, false, killtest.Prefixed("committed "), 200)
	if acked < 200 {
		t.Fatalf("child committed only %d batches before exiting", acked)
	}
	db, err := Open(dir, testConfig(), Options{})
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer db.Close()
	for i := 0; i <= acked; i++ {
		u := fmt.Sprintf("http://a.test/%d", i)
		p, err := db.Page(u)
		if err != nil {
			t.Fatalf("batch %d was acknowledged but page %s is lost: %v", i, u, err)
		}
		if _, err := db.LatestVersion(t.Context(), u); err != nil {
			t.Fatalf("batch %d: version lost while page %+v kept: %v", i, p, err)
		}
	}
	if got := db.LastChangeSeq(); got < uint64(acked+1) {
		t.Fatalf("change feed has %d entries, want at least %d", got, acked+1)
	}
}

func killChild() {
	dir := os.Getenv("REPO_KILL_CHILD")
	db, err := Open(dir, testConfig(), Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		u := fmt.Sprintf("http://a.test/%d", i)
		b := db.NewBatch(context.Background())
		err := errors.Join(
			b.PutPage(&Page{URL: u, State: StateLive, Version: t0}),
			b.AddVersion(u, &Version{FetchedAt: t0, Text: "some text", Body: bytes.Repeat([]byte("x"), 2048)}),
		)
		b.AppendChange(u, ChangeUpsert, t0)
		if err == nil {
			err = b.Commit()
		}
		if err != nil {
			fmt.Println("commit:", err)
			os.Exit(2)
		}
		fmt.Printf("committed %d\n", i)
	}
}

func TestBucketOrCreateStoresOnce(t *testing.T) {
	db := openMem(t)
	calls := 0
	create := func() ([]byte, error) { calls++; return []byte{byte(calls)}, nil }
	v, created, err := db.BucketOrCreate(t.Context(), "rank", "secret", create)
	if err != nil || !created || !bytes.Equal(v, []byte{1}) {
		t.Fatalf("first call = %v, %v, %v; want [1], created", v, created, err)
	}
	v, created, err = db.BucketOrCreate(t.Context(), "rank", "secret", create)
	if err != nil || created || !bytes.Equal(v, []byte{1}) || calls != 1 {
		t.Fatalf("second call = %v, %v, %v after %d creates; want the stored [1]", v, created, err, calls)
	}
	boom := errors.New("no entropy")
	if _, _, err := db.BucketOrCreate(t.Context(), "ads", "secret", func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("create error = %v", err)
	}
	if _, err := db.Bucket("ads", "secret"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a failed create stored something: %v", err)
	}
}

// TestPutFetchedCommitsAsACrawl loads more pages than one batch holds:
// each is live with its version, and the change feed has one upsert per
// page in order, as a crawl's fetches leave them.
func TestPutFetchedCommitsAsACrawl(t *testing.T) {
	db := openMem(t)
	at := time.Date(2023, 1, 30, 12, 0, 0, 0, time.UTC)
	pages := make([]Fetched, 300)
	for i := range pages {
		pages[i] = Fetched{URL: fmt.Sprintf("http://a.test/p%03d", i), Title: fmt.Sprint("Page ", i), Text: fmt.Sprint("text of page ", i)}
	}
	if err := db.PutFetched(t.Context(), at, pages); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Fetched{pages[0], pages[255], pages[256], pages[299]} {
		got, err := db.Page(p.URL)
		if err != nil || got.State != StateLive || !got.Version.Equal(at) || got.Title != p.Title {
			t.Fatalf("%s: %+v, %v", p.URL, got, err)
		}
		vs, err := db.Versions(t.Context(), p.URL, true)
		if err != nil || len(vs) != 1 || vs[0].Text != p.Text || !vs[0].FetchedAt.Equal(at) {
			t.Fatalf("%s: versions %+v, %v", p.URL, vs, err)
		}
	}
	changes, err := db.Changes(t.Context(), 0, 1000)
	if err != nil || len(changes) != len(pages) {
		t.Fatalf("%d changes, %v: want %d", len(changes), err, len(pages))
	}
	for i, c := range changes {
		if c.URL != pages[i].URL || c.Kind != ChangeUpsert {
			t.Fatalf("change %d: %+v, want an upsert of %s", i, c, pages[i].URL)
		}
	}
}
