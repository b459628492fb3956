package watch

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// keysUnder lists the watch bucket's keys under prefix with their value sizes.
func keysUnder(t *testing.T, db *repo.DB, prefix string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for kv, err := range db.BucketScan(t.Context(), bucket, prefix) {
		if err != nil {
			t.Fatal(err)
		}
		out[string(kv[0])] = len(kv[1])
	}
	return out
}

func TestInstallWritesOneMemberKeyNotTheGroup(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	u := s.set("/a", htmlPage(article))
	var ids []string
	var groupBytes []int
	for i := range 4 {
		typ := Words
		if i == 3 {
			typ = Links
		}
		sn, err := e.Install(t.Context(), Spec{URL: u, Type: typ, Every: time.Duration(i+1) * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sn.ID)
		groupBytes = append(groupBytes, keysUnder(t, db, groupPrefix)[groupPrefix+u])
	}
	if g, tb, n := keysUnder(t, db, groupPrefix), keysUnder(t, db, tablePrefix), keysUnder(t, db, memberPrefix); len(g) != 1 || len(tb) != 2 || len(n) != 4 {
		t.Fatalf("after 4 installs on 2 tables: %d group, %d table, %d member keys; want 1, 2, 4", len(g), len(tb), len(n))
	}
	for i, n := range groupBytes {
		if n != groupBytes[0] {
			t.Errorf("the group record grew with install %d: %d bytes, first %d", i+1, n, groupBytes[0])
		}
	}
	gs, err := e.Groups(t.Context())
	if err != nil || len(gs) != 1 || len(gs[0].Every) != 4 {
		t.Fatalf("Groups = %+v, %v; want one group with 4 wishes", gs, err)
	}

	// The links table goes with its only member; the words table stays
	// until its last member goes, and the group with it.
	for i, left := range []struct{ tables, members int }{{1, 3}, {1, 2}, {1, 1}, {0, 0}} {
		id := ids[(i+3)%4]
		if err := e.Remove(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		if tb, n := keysUnder(t, db, tablePrefix), keysUnder(t, db, memberPrefix); len(tb) != left.tables || len(n) != left.members {
			t.Errorf("after removing %s: %d tables, %d members; want %d, %d", id, len(tb), len(n), left.tables, left.members)
		}
	}
	for _, p := range []string{groupPrefix, copyPrefix, sumPrefix} {
		if k := keysUnder(t, db, p); len(k) != 0 {
			t.Errorf("after removing every sentinel, %s keys remain: %v", p, k)
		}
	}
}

// TestGroupsStoredWholeAreMoved writes groups as they were stored before
// members had keys of their own, and checks that a new engine moves them
// and their sentinels keep working.
func TestGroupsStoredWholeAreMoved(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	u := s.set("/a", htmlPage(article))
	for range 2 {
		if _, err := e.Install(t.Context(), Spec{URL: u, Type: Words, Every: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	// Rewrite into the old layout: tables and members inside g/KEY.
	var g group
	if _, err := (&reader{db: db}).get(groupPrefix+u, &g); err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(t.Context())
	var errs []error
	for k := range keysUnder(t, db, tablePrefix) {
		var tb table
		if _, err := (&reader{db: db}).get(k, &tb); err != nil {
			t.Fatal(err)
		}
		lt := &legacyTable{table: tb}
		for mk := range keysUnder(t, db, membersOf(u, tableID(&tb.Spec))) {
			lt.Members = append(lt.Members, member{ID: mk[strings.LastIndexByte(mk, 0)+1:], Every: time.Hour})
			errs = append(errs, b.DeleteBucket(bucket, mk))
		}
		g.Tables = append(g.Tables, lt)
		errs = append(errs, b.DeleteBucket(bucket, k))
	}
	v, err := json.Marshal(&g)
	errs = append(errs, err, b.PutBucket(bucket, groupPrefix+u, v))
	if err := errors.Join(append(errs, b.Commit())...); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if n := keysUnder(t, db, memberPrefix); len(n) != 0 {
		t.Fatalf("the old layout still has member keys: %v", n)
	}

	e2 := newEngine(t, db, nil, clk, Options{})
	if tb, n := keysUnder(t, db, tablePrefix), keysUnder(t, db, memberPrefix); len(tb) != 1 || len(n) != 2 {
		t.Fatalf("after the move: %d tables, %d members; want 1, 2", len(tb), len(n))
	}
	if strings.Contains(string(mustGet(t, db, groupPrefix+u)), `"tables"`) {
		t.Error("the group record still holds its tables")
	}
	s.set("/a", htmlPage(repl("keynote", "keynote and workshops")(article)))
	res, err := e2.Check(t.Context(), u)
	if err != nil || res.Fired != 2 {
		t.Errorf("check after the move: %+v, %v; want both sentinels fired", res, err)
	}
}

func mustGet(t *testing.T, db *repo.DB, key string) []byte {
	t.Helper()
	v, err := db.Bucket(bucket, key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStoreWrittenAsJSONStaysReadable writes sentinels, tables, members and
// history in the JSON form repositories held before the binary one, and
// checks that a new engine reads them as they were, checks on them, and
// writes what it changes in the binary form.
func TestStoreWrittenAsJSONStaysReadable(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	u := s.set("/a", htmlPage(article))
	var ids []string
	for _, spec := range []Spec{
		{Type: Words}, {Type: Words}, {Type: Phrase, Object: "opens on March 3 at the main hall"},
		{Type: Keywords, Keywords: []string{"workshops"}, Mode: Digest, Period: time.Minute},
	} {
		spec.URL, spec.Every = u, time.Hour
		sn, err := e.Install(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sn.ID)
	}
	// Far from the phrase's box: the words and keywords tables change.
	page := repl("every day", "every day at workshops")(article)
	s.set("/a", htmlPage(page))
	clk.add(time.Hour)
	if res, err := e.Check(t.Context(), u); err != nil || res.Changed != 2 || res.Fired != 3 {
		t.Fatalf("first check: %+v, %v; want 2 tables changed (words, keywords), 3 fired", res, err)
	}
	before := readAll(t, e, ids)

	// Rewrite every record in JSON, as the code before the binary form
	// wrote it (the struct tags are unchanged).
	b := db.NewBatch(t.Context())
	var errs []error
	rewrite := func(prefix string, v func() record) {
		for k := range keysUnder(t, db, prefix) {
			r := v()
			if _, err := (&reader{db: db}).get(k, r); err != nil {
				t.Fatal(err)
			}
			j, err := json.Marshal(r)
			errs = append(errs, err, b.PutBucket(bucket, k, j))
		}
	}
	rewrite(sentinelPrefix, func() record { return &Sentinel{} })
	rewrite(tablePrefix, func() record { return &table{} })
	rewrite(memberPrefix, func() record { return &member{} })
	rewrite(historyPrefix, func() record { return &Change{} })
	if err := errors.Join(append(errs, b.Commit())...); err != nil {
		t.Fatal(err)
	}
	b.Close()
	for _, p := range []string{sentinelPrefix, tablePrefix, memberPrefix, historyPrefix} {
		for k := range keysUnder(t, db, p) {
			if v := mustGet(t, db, k); v[0] != '{' {
				t.Fatalf("%q is not JSON: %q", k, v)
			}
		}
	}

	e2 := newEngine(t, db, nil, clk, Options{})
	if got := readAll(t, e2, ids); !reflect.DeepEqual(got, before) {
		t.Fatalf("read from JSON:\n%+v\nwritten:\n%+v", got, before)
	}
	page = repl("Forms that work", "Forms that work well")(repl("March 3", "March 9")(page))
	s.set("/a", htmlPage(page))
	clk.add(time.Hour)
	if res, err := e2.Check(t.Context(), u); err != nil || res.Changed != 2 || res.Fired != 3 {
		t.Fatalf("check on the JSON records: %+v, %v; want 2 tables changed (words, phrase), 3 fired", res, err)
	}
	after := readAll(t, e2, ids)
	for i, id := range ids[:3] {
		want := before.history[i]
		if n := len(after.history[i]); n != len(want)+1 || !reflect.DeepEqual(append([]Change(nil), after.history[i][:n-1]...), want) {
			t.Errorf("%s: history %+v after the second change, want the JSON entries %+v and a new one", id, after.history[i], want)
		}
		if v := mustGet(t, db, sentinelPrefix+id); v[0] != formatV1 {
			t.Errorf("%s rewritten as %q, want the binary form", id, v[:1])
		}
	}
	if v := mustGet(t, db, sentinelPrefix+ids[3]); v[0] != '{' {
		t.Errorf("the keywords sentinel, whose table did not change, was rewritten: %q", v[:1])
	}
}

// stored is what List and History give for some sentinels.
type stored struct {
	sentinels []*Sentinel
	history   [][]Change
}

func readAll(t *testing.T, e *Engine, ids []string) stored {
	t.Helper()
	var out stored
	for _, id := range ids {
		s, err := e.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		h, err := e.History(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		out.sentinels = append(out.sentinels, s)
		out.history = append(out.history, h)
	}
	return out
}

// A user's sentinels are listed through the user's list, which installs
// and removals keep, and which opening a repository written before it
// builds once.
func TestListReadsTheUsersList(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	u := s.set("/a", htmlPage(article))
	ids := map[string][]string{}
	for i, user := range []string{"ann", "bob", "ann", "", "ann"} {
		sn, err := e.Install(t.Context(), Spec{User: user, URL: u, Type: Words, Every: time.Duration(i+1) * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ids[user] = append(ids[user], sn.ID)
	}
	listed := func(e *Engine, user string) []string {
		t.Helper()
		ss, err := e.List(t.Context(), user)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	if got := listed(e, "ann"); !reflect.DeepEqual(got, ids["ann"]) {
		t.Errorf("ann's sentinels %v, want %v in install order", got, ids["ann"])
	}
	if got := listed(e, ""); len(got) != 5 {
		t.Errorf("everyone's sentinels: %v, want 5", got)
	}
	if err := e.Remove(t.Context(), ids["ann"][1]); err != nil {
		t.Fatal(err)
	}
	want := []string{ids["ann"][0], ids["ann"][2]}
	if got := listed(e, "ann"); !reflect.DeepEqual(got, want) {
		t.Errorf("after a removal ann's sentinels %v, want %v", got, want)
	}
	if n := len(keysUnder(t, db, userPrefix)); n != 4 {
		t.Errorf("%d entries in the users' lists for 4 sentinels", n)
	}

	// A repository written before the lists: they are built at open.
	b := db.NewBatch(t.Context())
	for k := range keysUnder(t, db, userPrefix) {
		b.DeleteBucket(bucket, k)
	}
	b.DeleteBucket(bucket, usersMark)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if got := listed(e, "ann"); len(got) != 0 {
		t.Fatalf("without the lists ann has %v", got)
	}
	again := newEngine(t, db, nil, newClock(t0), Options{})
	if got := listed(again, "ann"); !reflect.DeepEqual(got, want) {
		t.Errorf("after the lists were built ann's sentinels %v, want %v", got, want)
	}
	if got := listed(again, "bob"); !reflect.DeepEqual(got, ids["bob"]) {
		t.Errorf("bob's sentinels %v, want %v", got, ids["bob"])
	}
}
