package feeds

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// TestSubscribeRefusesAURLWithAControlCharacter: "http://a.test/\x00"
// was normalized as a link in a page is, the NUL trimmed, and the page
// http://a.test/ subscribed in its place.
func TestSubscribeRefusesAURLWithAControlCharacter(t *testing.T) {
	s, _ := openStore(t, vfs.NewMem(), "")
	for _, u := range []string{"http://site0.synth.test/\x00", "http://a.test/feed\x1b", "http://a.test/a\tb"} {
		_, _, err := s.Subscribe(t.Context(), u, AddOptions{}, t0)
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != "url" || se.Value != u || !strings.Contains(se.Limit, urlnorm.GivenRule) {
			t.Errorf("Subscribe(%q): %v, want a SettingError on url with the rule", u, err)
		}
	}
	if list, err := s.List(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("feeds after the refused subscriptions: %v, %v; want none", list, err)
	}
	if f, _, err := s.Subscribe(t.Context(), " http://a.test/feed\n", AddOptions{}, t0); err != nil || f.URL != "http://a.test/feed" {
		t.Errorf("a URL with a space before and a newline after: %+v, %v; want it trimmed and subscribed", f, err)
	}
	// Nothing answers on port 0: such a feed would fail every poll.
	for _, u := range []string{"http://a.test:0/feed", "https://a.test:00/feed"} {
		_, _, err := s.Subscribe(t.Context(), u, AddOptions{}, t0)
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != "url" || !strings.Contains(se.Limit, "not 0") {
			t.Errorf("Subscribe(%q): %v, want a SettingError on url naming port 0", u, err)
		}
	}
}

// TestSubscribeRefusesANameOrFoldersItWouldCut: a name or folders the
// subscriber sets were cut to what the store keeps (1,022 bytes, 8
// folders) and a NUL name or an empty folder taken; each is refused,
// naming the field, and nothing changes. An import's (neither set) are
// still cut, as a foreign list's must be.
func TestSubscribeRefusesANameOrFoldersItWouldCut(t *testing.T) {
	s, _ := openStore(t, vfs.NewMem(), "")
	const u = "http://a.test/feed"
	named := AddOptions{Name: "A", SetName: true, Folders: []string{"Tech"}, SetFolders: true}
	if _, _, err := s.Subscribe(t.Context(), u, named, t0); err != nil {
		t.Fatal(err)
	}
	thirty := make([]string, 30)
	for i := range thirty {
		thirty[i] = fmt.Sprint("f", i)
	}
	long := strings.Repeat("n", 5000)
	for _, c := range []struct {
		name    string
		o       AddOptions
		setting string
	}{
		{"a name of 5,000 bytes", AddOptions{Name: long, SetName: true}, "name"},
		{"a name of a NUL", AddOptions{Name: "\x00", SetName: true}, "name"},
		{"a name with a newline", AddOptions{Name: "a\nb", SetName: true}, "name"},
		{"a name of invalid UTF-8", AddOptions{Name: "a\xffb", SetName: true}, "name"},
		{"30 folders", AddOptions{Folders: thirty, SetFolders: true}, "folders"},
		{"an empty folder", AddOptions{Folders: []string{""}, SetFolders: true}, "folders[0]"},
		{"a blank folder", AddOptions{Folders: []string{"Tech", " "}, SetFolders: true}, "folders[1]"},
		{"a folder of 5,000 bytes", AddOptions{Folders: []string{"Tech", "Go", "x", long}, SetFolders: true}, "folders[3]"},
		{"a folder with a control character", AddOptions{Folders: []string{"a\x7fb"}, SetFolders: true}, "folders[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := s.Subscribe(t.Context(), u, c.o, t0)
			var se *SettingError
			if !errors.As(err, &se) || se.Setting != c.setting {
				t.Fatalf("Subscribe: %v, want a SettingError on %s", err, c.setting)
			}
			if msg := err.Error(); len(msg) > 600 || !strings.Contains(msg, "1024 bytes") && !strings.Contains(msg, "at most 8 folders") {
				t.Errorf("the error %q is over 600 bytes or does not name the limit", msg)
			}
			if f, err := s.Get(IDOf(u)); err != nil || f.Name != "A" || !slices.Equal(f.Folders, []string{"Tech"}) {
				t.Errorf("the feed after the refusal: %q %q, %v; want it as it was", f.Name, f.Folders, err)
			}
		})
	}
	full := AddOptions{Name: strings.Repeat("é", MaxTitleBytes/2), SetName: true, Folders: thirty[:MaxFolders], SetFolders: true}
	if f, _, err := s.Subscribe(t.Context(), u, full, t0); err != nil || f.Name != full.Name || !slices.Equal(f.Folders, full.Folders) {
		t.Errorf("a name of %d bytes and %d folders: %q %q, %v; want both kept whole", len(full.Name), MaxFolders, f.Name, f.Folders, err)
	}
	imported := AddOptions{Name: long, Folders: thirty}
	f, _, err := s.Subscribe(t.Context(), "http://b.test/feed", imported, t0)
	if err != nil || len(f.Name) > MaxTitleBytes || len(f.Folders) != MaxFolders {
		t.Errorf("an import's long name and 30 folders: %d bytes, %d folders, %v; want them cut, not refused", len(f.Name), len(f.Folders), err)
	}
}

// subscribeOneByOne is what Subscribe gives for each of subs in turn.
func subscribeOneByOne(t *testing.T, s *Store, subs []Subscription) []Subscribed {
	t.Helper()
	var out []Subscribed
	for _, sub := range subs {
		f, isNew, err := s.Subscribe(t.Context(), sub.URL, sub.Options, t0)
		var se *SettingError
		if err != nil && !errors.As(err, &se) {
			t.Fatal(err)
		}
		out = append(out, Subscribed{Feed: f, New: isNew, Err: err})
	}
	return out
}

// TestSubscribeManyStoresWhatSubscribeWould subscribes one list over more
// than two batches in two stores, one feed at a time in one and in one
// call in the other: the outcomes, the records (names, folders, settings)
// and the edits counted are the same. A feed subscribed before keeps its
// labels and takes the weight given; one removed before starts anew, its
// removal mark gone; a URL, weight or interval Subscribe refuses is that
// subscription's SettingError; a feed given twice in one batch, or on
// either side of a batch's end, is new once and takes both settings.
func TestSubscribeManyStoresWhatSubscribeWould(t *testing.T) {
	subs := make([]Subscription, 2*subscribeBatch+20)
	for i := range subs {
		subs[i] = Subscription{URL: fmt.Sprintf("http://h%d.test/feed", i),
			Options: AddOptions{Name: fmt.Sprint("f", i), Folders: []string{"Tech", fmt.Sprint(i % 3)}}}
	}
	set := func(i int, u string, o AddOptions) { subs[i] = Subscription{URL: u, Options: o} }
	set(0, "http://pre.test/feed", AddOptions{Name: "Imported", Folders: []string{"New"}, Weight: new(5.0)})
	set(1, "http://gone.test/feed", AddOptions{Name: "Back"})
	set(2, "http://user:pw@bad.test/feed", AddOptions{})
	set(3, "http://w.test/feed", AddOptions{Weight: new(0.0)})
	set(4, "http://step.test/feed", AddOptions{MinInterval: new(time.Minute)})
	set(5, "http://over.test/feed", AddOptions{MinInterval: new(30 * 24 * time.Hour)}) // over the default max, 7 days
	set(6, "http://ftp.test/feed\x00", AddOptions{})
	set(10, "http://twice.test/feed", AddOptions{Weight: new(3.0), Name: "Twice"})
	set(11, "http://TWICE.test/feed", AddOptions{MaxInterval: new(2 * time.Hour), Name: "Again", SetName: true})
	set(subscribeBatch-1, "http://edge.test/feed", AddOptions{Weight: new(3.0)})
	set(subscribeBatch, "http://edge.test/feed", AddOptions{MaxInterval: new(2 * time.Hour)})

	var outs [2][]Subscribed
	var lists [2][]Feed
	var edits [2]uint64
	for i, subscribeAll := range []func(*Store) []Subscribed{
		func(s *Store) []Subscribed { return subscribeOneByOne(t, s, subs) },
		func(s *Store) []Subscribed {
			out, err := s.SubscribeMany(t.Context(), subs, t0)
			if err != nil {
				t.Fatal(err)
			}
			return out
		},
	} {
		s, db := openStore(t, vfs.NewMem(), "")
		defer db.Close()
		mine := AddOptions{Name: "Mine", SetName: true, Folders: []string{"Old"}, SetFolders: true}
		if _, _, err := s.Subscribe(t.Context(), "http://pre.test/feed", mine, t0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		gone := subscribe(t, s, "http://gone.test/feed")[0]
		if _, err := s.Record(t.Context(), gone, Fetch{At: t0.Add(-time.Hour), Status: 200, Body: atom(t0.Add(-2 * time.Hour))}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Remove(t.Context(), gone); err != nil {
			t.Fatal(err)
		}
		outs[i] = subscribeAll(s)
		var err error
		if lists[i], err = s.List(t.Context()); err != nil {
			t.Fatal(err)
		}
		edits[i] = s.Edits()
		if n := countKeys(t, db, removedPrefix); n != 0 {
			t.Errorf("%d removal marks after subscribing again, want none", n)
		}
	}
	if !reflect.DeepEqual(outs[0], outs[1]) {
		for i := range subs {
			if !reflect.DeepEqual(outs[0][i], outs[1][i]) {
				t.Errorf("%s: SubscribeMany gave %+v, Subscribe %+v", subs[i].URL, outs[1][i], outs[0][i])
			}
		}
		t.Fatalf("SubscribeMany of %d: outcomes differ from Subscribe's", len(subs))
	}
	if !reflect.DeepEqual(lists[0], lists[1]) || edits[0] != edits[1] {
		t.Errorf("SubscribeMany stored %d feeds, %d edits; Subscribe %d feeds, %d edits; want the same records", len(lists[1]), edits[1], len(lists[0]), edits[0])
	}

	out := outs[1]
	if r := out[0]; r.New || r.Feed.Name != "Mine" || !slices.Equal(r.Feed.Folders, []string{"Old"}) || r.Feed.Weight != 5 {
		t.Errorf("the feed subscribed before: %+v; want its name and folder kept, weight 5", r)
	}
	if r := out[1]; !r.New || r.Feed.Resubscribed.IsZero() || r.Feed.Name != "Back" || r.Feed.Fetches != 0 {
		t.Errorf("the feed removed before: %+v; want new, resubscribed, named Back, never polled", r)
	}
	for i, setting := range map[int]string{2: "url", 3: "weight", 4: "min_interval", 5: "min_interval", 6: "url"} {
		var se *SettingError
		if !errors.As(out[i].Err, &se) || se.Setting != setting {
			t.Errorf("%q: %v, want a SettingError on %s", subs[i].URL, out[i].Err, setting)
		}
	}
	for _, pair := range [][2]int{{10, 11}, {subscribeBatch - 1, subscribeBatch}} {
		first, again := out[pair[0]], out[pair[1]]
		if !first.New || again.New || again.Feed.ID != first.Feed.ID || again.Feed.Weight != 3 || again.Feed.MaxInterval != 2*time.Hour {
			t.Errorf("%s given twice: new %v then %v, %+v; want new once, weight 3, every 2h at most", subs[pair[0]].URL, first.New, again.New, again.Feed)
		}
	}
	if f := out[11].Feed; f.Name != "Again" || !slices.Equal(f.Folders, nil) {
		t.Errorf("twice.test renamed in the same batch: %q %q; want Again, no folder", f.Name, f.Folders)
	}
	if f := out[20].Feed; !out[20].New || f.Name != "f20" || !slices.Equal(f.Folders, []string{"Tech", "2"}) || f.Weight != 1 || f.MaxInterval != testConfig().MaxInterval {
		t.Errorf("a new feed: %+v; want named f20 in Tech/2, the default settings", out[20])
	}
}

// TestSubscribeManyReadsEachCopyBeforeTheNext: a new feed the crawler
// has fetched reads that copy before the next subscription is looked
// up, as one at a time: the feed a permanent redirect moved to the URL a
// later subscription names is that one's, already subscribed.
func TestSubscribeManyReadsEachCopyBeforeTheNext(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const a, b, c = "http://old.test/feed", "http://new.test/feed", "http://c.test/feed"
	fetchedAs(t, db, a, t0, 301, b, nil)
	fetchedAs(t, db, b, t0.Add(time.Minute), 200, "", atom(t0.Add(-2*time.Hour), t0.Add(-time.Hour)))
	out, err := s.SubscribeMany(t.Context(), []Subscription{{URL: a}, {URL: b}, {URL: c}}, t0.Add(time.Hour))
	if err != nil || len(out) != 3 {
		t.Fatalf("SubscribeMany: %d outcomes, %v; want 3", len(out), err)
	}
	if f := out[0].Feed; !out[0].New || f.URL != b || f.MovedFrom != a || f.Postings != 2 {
		t.Errorf("%s: %+v; want new, moved to %s with its 2 postings", a, out[0], b)
	}
	if out[1].New || out[1].Feed.ID != out[0].Feed.ID {
		t.Errorf("%s: new %v, id %s; want the feed moved there, %s", b, out[1].New, out[1].Feed.ID, out[0].Feed.ID)
	}
	if !out[2].New {
		t.Errorf("%s: %+v; want new", c, out[2])
	}
	if list, err := s.Subscriptions(t.Context()); err != nil || len(list) != 2 {
		t.Errorf("%d subscriptions, %v; want 2", len(list), err)
	}
}

// cancelAfter is a context cancelled once its Err has been asked n times.
type cancelAfter struct {
	context.Context
	cancel context.CancelFunc
	n      atomic.Int32
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// TestSubscribeManyCancelledKeepsWhatItReturned: a SubscribeMany
// cancelled part-way returns the error and the outcomes of the feeds it
// stored, each stored whole and no other; run again, it finds those
// subscribed and subscribes the rest.
func TestSubscribeManyCancelledKeepsWhatItReturned(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	subs := make([]Subscription, 3*subscribeBatch)
	for i := range subs {
		subs[i] = Subscription{URL: fmt.Sprintf("http://h%d.test/feed", i), Options: AddOptions{Name: fmt.Sprint("f", i)}}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cut := &cancelAfter{Context: ctx, cancel: cancel}
	cut.n.Store(1)
	done, err := s.SubscribeMany(cut, subs, t0)
	if !errors.Is(err, context.Canceled) || len(done) == 0 || len(done) >= len(subs) {
		t.Fatalf("SubscribeMany cancelled: %d of %d outcomes, %v; want some, and context.Canceled", len(done), len(subs), err)
	}
	if n := countKeys(t, db, "f/"); n != len(done) {
		t.Errorf("%d feeds stored, %d returned; want the same", n, len(done))
	}
	for i, r := range done {
		if f, err := s.Get(IDOf(subs[i].URL)); !r.New || err != nil || f.Name != subs[i].Options.Name {
			t.Fatalf("%s: %+v stored as %+v, %v; want it new and stored with its name", subs[i].URL, r, f, err)
		}
	}
	again, err := s.SubscribeMany(t.Context(), subs, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again {
		if r.New != (i >= len(done)) {
			t.Fatalf("%s run again: new %v; want new only past the %d stored", subs[i].URL, r.New, len(done))
		}
	}
}

// TestCheckOptionsRefusesWhatSubscribeWouldOfEveryFeed: a weight or
// interval no feed can take is refused by CheckOptions, for the command
// line to say once, with the SettingError Subscribe gives each feed.
func TestCheckOptionsRefusesWhatSubscribeWouldOfEveryFeed(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	for _, o := range []AddOptions{
		{Weight: new(0.0)},
		{Weight: new(-1.0)},
		{Weight: new(math.NaN())},
		{Weight: new(math.Inf(1))},
		{MinInterval: new(time.Duration(0))},
		{MaxInterval: new(-time.Hour)},
		{MinInterval: new(time.Minute)},
		{MaxInterval: new(time.Minute)},
		{MinInterval: new(2 * time.Hour), MaxInterval: new(time.Hour)},
	} {
		err := testConfig().CheckOptions(o)
		_, _, want := s.Subscribe(t.Context(), "http://a.test/feed", o, t0)
		var se *SettingError
		if !errors.As(err, &se) || !reflect.DeepEqual(err, want) {
			t.Errorf("%+v: CheckOptions %v, Subscribe %v; want the same SettingError", o, err, want)
		}
	}
	for _, o := range []AddOptions{{}, {Weight: new(0.5), MinInterval: new(time.Hour), MaxInterval: new(time.Hour)}, {MinInterval: new(30 * 24 * time.Hour)}} {
		if err := testConfig().CheckOptions(o); err != nil {
			t.Errorf("%+v: %v; want it taken (a min over the default max may be under a feed's own)", o, err)
		}
	}
}
