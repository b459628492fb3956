package feeds

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Bucket is the repository bucket the feed state lives in (repo/FORMAT.md):
// "f/<id>" a Feed's record and "l/<id>" its lists (Seen, History),
// "i/<id>/<first seen>/<key hash>" a StoredItem (a format byte and JSON
// each), and the river's index of every feed's items, newest
// first: "r/<first seen, complemented>/<id>/<key hash>" the item's key,
// written, trimmed and removed in the batches that write, trim and remove
// the item; "x/<id>" the crawler's last fetch of a removed feed's URL
// (Remove), until the URL is subscribed again.
const Bucket = "feeds"

// riverIndexed marks a bucket whose river index covers every item: a
// repository written before the index existed gets it once, at NewStore.
const riverIndexed = "v/river"

// removedPrefix keys, "x/<id>", the crawler's last fetch of a feed when
// it was removed (Remove): subscribing to the URL again takes no fetch up
// to it (Feed.Resubscribed), so that the new subscription starts from zero
// rather than from the copy the removed one had read.
const removedPrefix = "x/"

// movedPrefix keys, "u/<IDOf(url)>", the id of the feed a permanent
// redirect moved to url: a feed keeps the id of the URL it was subscribed
// at, so that looking a URL up (Add, Lookup) reads this first. Written and
// deleted in the batch that moves or removes the feed.
const movedPrefix = "u/"

// listsApart marks a bucket whose feeds keep Seen and History under
// "l/<id>": a repository written before gets them moved once, at NewStore.
const listsApart = "v/lists"

const formatV1 = 1

// Feed is one subscribed feed and what has been learned from polling it.
type Feed struct {
	ID          string        `json:"id"`
	URL         string        `json:"url"`
	Title       string        `json:"title,omitempty"`
	Weight      float64       `json:"weight"`
	MinInterval time.Duration `json:"min_interval"`
	MaxInterval time.Duration `json:"max_interval"`
	Added       time.Time     `json:"added"`

	// Name is the subscriber's own name for the feed (an OPML outline's
	// text), where Title is the one the feed's document gives; Folders
	// are the folders it is filed in, outermost first. Both are set when
	// it is subscribed (AddOptions), cut and kept as labelsOf bounds them;
	// a record written before they were kept has neither.
	Name    string   `json:"name,omitempty"`
	Folders []string `json:"folders,omitempty"`

	// Validators for conditional GET.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`

	// Resubscribed is the crawler's last fetch of the URL when an earlier
	// subscription of it was removed: Absorb takes no fetch up to it, so a
	// feed subscribed again starts from zero, not from the old copy.
	Resubscribed time.Time `json:"resubscribed,omitzero"`

	// Read is when the crawler stored the copy of the feed last parsed
	// (Absorb): a copy stored after it is new to the feed, even when the
	// crawler's own fetch found it unchanged.
	Read time.Time `json:"read,omitzero"`

	// MovedFrom is the URL the feed was subscribed at before a permanent
	// redirect (301, 308) moved it to URL, Moved when; empty for a feed
	// never moved. Redirects are the URLs it was moved from since its last
	// fetch that was not a redirect, oldest first: a chain longer than the
	// store's redirect limit, or one coming back to a URL of it (a loop),
	// is not followed (Absorb).
	MovedFrom string    `json:"moved_from,omitempty"`
	Moved     time.Time `json:"moved,omitzero"`
	Redirects []string  `json:"redirects,omitempty"`

	LastFetch  time.Time `json:"last_fetch"`
	LastStatus int       `json:"last_status,omitempty"`
	LastError  string    `json:"last_error,omitempty"`
	// Awaits is the target of the temporary redirect the last poll found
	// and could not read yet (Update.Awaits), kept so that a restarted
	// poller asks for it again; empty once the target is read or fails.
	Awaits string `json:"awaits,omitempty"`
	// LastCuts is what the last body read left out or shortened.
	LastCuts    Cuts `json:"last_cuts,omitzero"`
	Fetches     int  `json:"fetches"`
	NotModified int  `json:"not_modified"`

	// Seen holds the keys of the newest items, oldest first, at most
	// feeds.seen_kept; History the posting times, at most feeds.history_kept.
	// Both are stored apart from the rest ("l/<id>"): Subscriptions leaves
	// them out, and Postings counts History.
	Seen     []string    `json:"seen,omitempty"`
	History  []time.Time `json:"history,omitempty"`
	Postings int         `json:"postings"`
	// Delays are the recent observed delays (first seen − posting time),
	// at most 64.
	Delays []time.Duration `json:"delays"`
}

// feedLists are a feed's long lists, "l/<id>".
type feedLists struct {
	Seen    []string    `json:"seen"`
	History []time.Time `json:"history"`
}

// StoredItem is an item as kept for the items and river APIs.
type StoredItem struct {
	FeedID    string    `json:"feed_id"`
	Key       string    `json:"key"`
	Title     string    `json:"title,omitempty"`
	Link      string    `json:"link,omitempty"`
	Published time.Time `json:"published,omitzero"`
	// Posted is the posting time used for learning (PostingTime).
	Posted    time.Time `json:"posted"`
	FirstSeen time.Time `json:"first_seen"`
}

// Store keeps feed state in the repository; every poll's result is one
// atomic batch, so a crash (kill -9) leaves each feed as it was before or
// after a poll, never between.
type Store struct {
	db  *repo.DB
	cfg Config
	// mu serialises the read-modify-write of feed records (Add, Record), so
	// two polls of one feed cannot lose each other's items.
	mu sync.Mutex
	// edits counts the subscriptions added, changed or removed (Edits).
	edits atomic.Uint64
	// maxRedirects bounds the permanent redirects followed in a row
	// (LimitRedirects).
	maxRedirects atomic.Int64
}

// DefaultMaxRedirects is the redirects a feed follows in a row unless
// LimitRedirects says otherwise: crawler.limits.max_redirects' default.
const DefaultMaxRedirects = 5

// LimitRedirects sets how many permanent redirects in a row a feed
// follows (crawler.limits.max_redirects): one more is not followed, and
// the feed stays at the URL it reached, its last error saying why.
func (s *Store) LimitRedirects(n int) { s.maxRedirects.Store(int64(max(n, 0))) }

// Edits counts the subscriptions added, changed or removed through this
// store since it was opened, so that a poller in the same process reads
// the feeds again at once instead of at its next refresh.
func (s *Store) Edits() uint64 { return s.edits.Load() }

// ErrUnknownFeed is returned for a feed id or URL not subscribed.
var ErrUnknownFeed = errors.New("feeds: unknown feed")

// delaysKept bounds Feed.Delays.
const delaysKept = 64

// NewStore returns the store over db, first bringing a repository written
// before the lists were kept apart or the river indexed up to date
// (moveLists, indexRiver).
func NewStore(ctx context.Context, db *repo.DB, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Store{db: db, cfg: cfg}
	s.maxRedirects.Store(DefaultMaxRedirects)
	if err := s.moveLists(ctx); err != nil {
		return nil, err
	}
	if err := s.indexRiver(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// moveLists rewrites every feed record that holds its lists (a repository
// written before they were kept apart) as a record and its lists, a feed's
// two in one batch; a feed already moved reads the same either way.
func (s *Store) moveLists(ctx context.Context) error {
	return s.db.Upgrade(ctx, Bucket, listsApart, 256, func(batch func() *repo.Batch, done func() error) error {
		var ids []string
		for kv, err := range s.db.BucketScan(ctx, Bucket, "f/") {
			if err != nil {
				return err
			}
			ids = append(ids, string(kv[0][len("f/"):]))
		}
		for _, id := range ids {
			f, err := s.Get(id)
			if err != nil {
				return err
			}
			if err := s.put(batch(), &f, true); err != nil {
				return err
			}
			if err := done(); err != nil {
				return err
			}
		}
		return nil
	})
}

// indexRiver adds every stored item to the river index.
func (s *Store) indexRiver(ctx context.Context) error {
	return s.db.Upgrade(ctx, Bucket, riverIndexed, 10000, func(batch func() *repo.Batch, done func() error) error {
		for kv, err := range s.db.BucketScan(ctx, Bucket, "i/") {
			if err != nil {
				return err
			}
			item := string(kv[0])
			rk, err := riverKey(item)
			if err != nil {
				return err
			}
			if err := batch().PutBucket(Bucket, rk, []byte(item)); err != nil {
				return err
			}
			if err := done(); err != nil {
				return err
			}
		}
		return nil
	})
}

// IDOf is a feed's id: the first 16 hex digits of SHA-256 of its URL.
func IDOf(u string) string {
	h := sha256.Sum256([]byte(u))
	return hex.EncodeToString(h[:8])
}

// AddOptions are a subscription's own settings. A nil one leaves the
// setting as it is: the default for a new feed, the feed's own for one
// already there, so that importing a list that holds it keeps its settings.
type AddOptions struct {
	Weight                   *float64
	MinInterval, MaxInterval *time.Duration
	// Name and Folders are what the subscriber calls the feed and where
	// they file it (Feed.Name, Feed.Folders): an OPML outline's text and
	// the outlines around it. A new subscription takes them; one already
	// there keeps its own, so that a list imported again, or one from
	// another reader that files feeds its own way, relabels nothing.
	Name    string
	Folders []string
	// SetName and SetFolders make Name and Folders replace those of a
	// feed already subscribed too (`feeds add --name`, `--folder`: the
	// subscriber renaming or refiling it); an import sets neither.
	SetName, SetFolders bool
}

// MaxFolders bounds the folder levels a feed keeps (Feed.Folders): the
// outermost, which place it in the tree; deeper ones are dropped. Feed
// readers nest two or three levels; eight is room to spare.
const MaxFolders = 8

// labelsOf is the name and folders o gives, bounded as a feed keeps them:
// each cut at MaxTitleBytes as a title is, at most MaxFolders folders.
// Nothing is refused: an import of a list with over-long names keeps
// every feed.
func labelsOf(o AddOptions) (string, []string) {
	var p Parsed // its title cut, not counted anywhere
	name := p.title(o.Name)
	var folders []string
	for _, f := range o.Folders[:min(len(o.Folders), MaxFolders)] {
		folders = append(folders, p.title(f))
	}
	return name, folders
}

// SettingError is a subscription setting Add refuses: which one (url,
// weight, min_interval, max_interval), the value given and the limit it
// breaks. The command line names it as a flag, the API as a field.
type SettingError struct{ Setting, Value, Limit string }

func (e *SettingError) Error() string {
	return fmt.Sprintf("feeds: %s = %.200q: must be %s", e.Setting, e.Value, e.Limit) // a value repeated in part
}

// Add subscribes to the feed at rawURL (http or https, normalized); adding
// one already there updates the options given and keeps the rest, and its
// state. A new subscription starts from the copy the crawler stored, if it
// fetched the URL already (a link of a crawled page): its items are the
// feed's at once (Absorb); a copy that is not a feed is the feed's last
// error. isNew reports whether the feed was not subscribed before.
func (s *Store) Add(ctx context.Context, rawURL string, o AddOptions, now time.Time) (f Feed, isNew bool, err error) {
	return one(s.addMany(ctx, []Subscription{{URL: rawURL, Options: o}}, now, false))
}

// Subscription is one feed to subscribe to (SubscribeMany): its URL as
// given and its settings.
type Subscription struct {
	URL     string
	Options AddOptions
}

// Subscribed is what came of one Subscription: the feed as stored and
// whether it was not subscribed before, or the *SettingError that refused
// it, nothing stored.
type Subscribed struct {
	Feed Feed
	New  bool
	Err  error
}

// one is the outcome of addMany for one subscription, as Add returns it.
func one(out []Subscribed, err error) (Feed, bool, error) {
	if len(out) == 0 {
		return Feed{}, false, err
	}
	return out[0].Feed, out[0].New, cmp.Or(err, out[0].Err)
}

// subscribeBatch bounds the subscriptions one batch holds: its commit
// syncs the write-ahead log, about a millisecond, which a commit for each
// feed makes most of an import's time; and s.mu is held while a batch is
// made, so a poll of another feed waits for this many record reads at most.
const subscribeBatch = 1000

// addMany adds subs in order, each as Add alone would, after the refusals
// of Subscribe (checkSubscription) if checked; a setting refused is that
// subscription's Err. It writes them in batches (addBatch), each
// committed whole or not at all: on an error, or once ctx is done, the
// subscriptions of the batches committed are stored and returned with
// the error, and none after them.
func (s *Store) addMany(ctx context.Context, subs []Subscription, now time.Time, checked bool) ([]Subscribed, error) {
	out := make([]Subscribed, 0, len(subs))
	for len(out) < len(subs) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		done, absorb, err := s.addBatch(ctx, subs[len(out):min(len(subs), len(out)+subscribeBatch)], now, checked)
		out = append(out, done...)
		if err != nil {
			return out, err
		}
		if absorb {
			last := &out[len(out)-1]
			if last.Feed, err = s.absorbNew(ctx, last.Feed); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// addBatch adds subs in order in one batch, up to and including the
// first new feed the crawler holds a copy of: that one reads it (absorb,
// then absorbNew) before the next subscription is looked up, since a
// permanent redirect there moves the feed (follow), maybe to a URL a
// later one names, which must find it moved as it would one at a time.
// It returns the outcome of those it added; none on an error.
func (s *Store) addBatch(ctx context.Context, subs []Subscription, now time.Time, checked bool) (out []Subscribed, absorb bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.db.NewBatch(ctx)
	defer b.Close()
	// The records b holds, by id: a feed subscribed twice in one batch
	// reads the first one's, as it would have read it committed.
	written := make(map[string]Feed)
	for _, sub := range subs {
		if absorb {
			break
		}
		f, isNew, err := s.addLocked(b, sub, now, checked, written)
		var se *SettingError
		switch {
		case errors.As(err, &se):
			out = append(out, Subscribed{Err: err})
			continue
		case err != nil:
			return nil, false, err
		}
		out = append(out, Subscribed{Feed: f, New: isNew})
		if isNew {
			switch _, err := s.db.Page(f.URL); {
			case err == nil:
				absorb = true
			case !errors.Is(err, repo.ErrNotFound):
				return nil, false, err
			}
		}
	}
	if b.Empty() {
		return out, false, nil
	}
	if err := b.Commit(); err != nil {
		return nil, false, err
	}
	for _, r := range out {
		if r.Err == nil {
			s.edits.Add(1)
		}
	}
	return out, absorb, nil
}

// addLocked writes to b the record sub gives its feed, new or already
// there (read from written if b holds it, and put there).
func (s *Store) addLocked(b *repo.Batch, sub Subscription, now time.Time, checked bool, written map[string]Feed) (f Feed, isNew bool, err error) {
	rawURL, o := sub.URL, sub.Options
	if checked {
		if err := s.checkSubscription(rawURL, o); err != nil {
			return Feed{}, false, err
		}
	}
	u, err := urlnorm.Normalize(rawURL)
	if err != nil {
		limit := "an absolute http or https URL"
		if errors.Is(err, urlnorm.ErrTooLong) {
			limit += fmt.Sprintf(" of at most %d bytes", urlnorm.MaxLength)
		}
		return Feed{}, false, &SettingError{Setting: "url", Value: rawURL, Limit: limit}
	}
	if err := checkValues(o); err != nil {
		return Feed{}, false, err
	}
	moved, err := s.movedTo(u)
	if err != nil {
		return Feed{}, false, err
	}
	id := cmp.Or(moved, IDOf(u))
	if w, ok := written[id]; ok {
		f, err = w, nil
	} else {
		f, err = s.Get(id)
	}
	switch {
	case errors.Is(err, ErrUnknownFeed):
		f = Feed{ID: IDOf(u), URL: u, Added: now, Weight: 1, MinInterval: s.cfg.MinInterval, MaxInterval: s.cfg.MaxInterval}
		f.Name, f.Folders = labelsOf(o)
		isNew = true
		if f.Resubscribed, err = s.removed(f.ID); err != nil {
			return Feed{}, false, err
		}
	case err != nil:
		return Feed{}, false, err
	default:
		name, folders := labelsOf(o)
		if o.SetName {
			f.Name = name
		}
		if o.SetFolders {
			f.Folders = folders
		}
	}
	f.Weight = deref(o.Weight, f.Weight)
	f.MinInterval, f.MaxInterval = deref(o.MinInterval, f.MinInterval), deref(o.MaxInterval, f.MaxInterval)
	if f.MinInterval > f.MaxInterval {
		return Feed{}, false, minOverMax(f.MinInterval, f.MaxInterval)
	}
	if err := s.put(b, &f, false); err != nil { // settings alone
		return Feed{}, false, err
	}
	if !f.Resubscribed.IsZero() && isNew { // now in the record
		if err := b.DeleteBucket(Bucket, removedPrefix+f.ID); err != nil {
			return Feed{}, false, err
		}
	}
	written[f.ID] = f
	return f, isNew, nil
}

// absorbNew reads the copy the crawler stored of feed f, just subscribed
// (Absorb), and returns the feed as it is then; a copy that is not a feed
// is the feed's last error.
func (s *Store) absorbNew(ctx context.Context, f Feed) (Feed, error) {
	_, absorbed, err := s.Absorb(ctx, f.ID)
	var bodyErr *BodyError
	switch {
	case errors.As(err, &bodyErr): // recorded as the feed's last error
	case err != nil:
		return f, err
	case !absorbed:
		return f, nil
	}
	return s.Get(f.ID)
}

// checkValues refuses a weight that is not a finite number > 0 and an
// interval that is not > 0, whatever the feed.
func checkValues(o AddOptions) error {
	if w := o.Weight; w != nil && !(*w > 0 && *w <= math.MaxFloat64) {
		return &SettingError{Setting: "weight", Value: strconv.FormatFloat(*w, 'g', -1, 64), Limit: "a finite number > 0"}
	}
	for _, iv := range []struct {
		setting string
		d       *time.Duration
	}{{"min_interval", o.MinInterval}, {"max_interval", o.MaxInterval}} {
		if iv.d != nil && *iv.d <= 0 {
			return &SettingError{Setting: iv.setting, Value: iv.d.String(), Limit: "a duration > 0"}
		}
	}
	return nil
}

// minOverMax refuses a feed's min interval over its max.
func minOverMax(lo, hi time.Duration) error {
	return &SettingError{Setting: "min_interval", Value: lo.String(), Limit: "≤ max_interval (" + hi.String() + ")"}
}

// deref is *p, or otherwise when p is nil.
func deref[T any](p *T, otherwise T) T {
	if p == nil {
		return otherwise
	}
	return *p
}

// Get returns the feed with id, with its lists.
func (s *Store) Get(id string) (Feed, error) {
	f, err := s.record(id)
	if err != nil {
		return Feed{}, err
	}
	return f, s.readLists(&f)
}

// Subscription returns the feed with id without its lists, as
// Subscriptions does.
func (s *Store) Subscription(id string) (Feed, error) {
	f, err := s.record(id)
	if err != nil {
		return Feed{}, err
	}
	withoutLists(&f)
	return f, nil
}

// record reads feed id's record.
func (s *Store) record(id string) (Feed, error) {
	v, err := s.db.Bucket(Bucket, "f/"+id)
	if errors.Is(err, repo.ErrNotFound) {
		return Feed{}, fmt.Errorf("%w: %s", ErrUnknownFeed, id)
	}
	if err != nil {
		return Feed{}, err
	}
	var f Feed
	if err := decode(v, &f); err != nil {
		return Feed{}, fmt.Errorf("feeds: feed %s: %w", id, err)
	}
	return f, nil
}

// withoutLists drops the lists a record written before they were kept
// apart holds, counting its postings.
func withoutLists(f *Feed) {
	if f.Seen != nil || f.History != nil {
		f.Postings = len(f.History)
		f.Seen, f.History = nil, nil
	}
}

// readLists reads f's lists, unless its record held them (one written
// before they were kept apart).
func (s *Store) readLists(f *Feed) error {
	v, err := s.db.Bucket(Bucket, "l/"+f.ID)
	if errors.Is(err, repo.ErrNotFound) {
		f.Postings = len(f.History)
		return nil
	}
	if err != nil {
		return err
	}
	var l feedLists
	if err := decode(v, &l); err != nil {
		return fmt.Errorf("feeds: lists of feed %s: %w", f.ID, err)
	}
	f.Seen, f.History, f.Postings = l.Seen, l.History, len(l.History)
	return nil
}

// removed is the crawler's last fetch of feed id when it was removed
// ("x/<id>"), zero if it never was.
func (s *Store) removed(id string) (time.Time, error) {
	v, err := s.db.Bucket(Bucket, removedPrefix+id)
	if errors.Is(err, repo.ErrNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	var at time.Time
	if err := decode(v, &at); err != nil {
		return time.Time{}, fmt.Errorf("feeds: removal of feed %s: %w", id, err)
	}
	return at, nil
}

// Remove unsubscribes from feed id: its record, its lists (seen keys,
// posting history), its items and their river entries and the poller's
// plan go in one batch, and it returns the feed and how many items went
// with it. What stays is when the crawler last fetched the URL
// ("x/<id>"): the crawler keeps its copy, and a new subscription must
// not take the removed one's state back from it (Absorb). A poll of the
// feed still in flight then finds it unknown (Record) and stores nothing.
func (s *Store) Remove(ctx context.Context, id string) (Feed, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.Get(id)
	if err != nil {
		return Feed{}, 0, err
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	fetched := clock.Later(f.LastFetch, f.Resubscribed)
	switch p, err := s.db.Page(f.URL); {
	case err == nil:
		fetched = clock.Later(fetched, p.LastFetch)
	case !errors.Is(err, repo.ErrNotFound):
		return Feed{}, 0, err
	}
	if !fetched.IsZero() {
		v, err := encode(fetched)
		if err != nil {
			return Feed{}, 0, err
		}
		// Under the id a new subscription of the URL gets (Add): the
		// feed's own, unless a redirect moved it.
		if err := b.PutBucket(Bucket, removedPrefix+IDOf(f.URL), v); err != nil {
			return Feed{}, 0, err
		}
	}
	if IDOf(f.URL) != id {
		if err := b.DeleteBucket(Bucket, movedPrefix+IDOf(f.URL)); err != nil {
			return Feed{}, 0, err
		}
	}
	items := 0
	for kv, err := range s.db.BucketScan(ctx, Bucket, "i/"+id+"/") {
		if err != nil {
			return Feed{}, 0, err
		}
		if err := deleteItem(b, string(kv[0])); err != nil {
			return Feed{}, 0, err
		}
		items++
	}
	for _, key := range []string{"f/" + id, "l/" + id, "p/" + id} {
		if err := b.DeleteBucket(Bucket, key); err != nil {
			return Feed{}, 0, err
		}
	}
	if err := b.Commit(); err != nil {
		return Feed{}, 0, err
	}
	s.edits.Add(1)
	return f, items, nil
}

// List returns every feed with its lists, by id: what planning reads.
func (s *Store) List(ctx context.Context) ([]Feed, error) {
	list, err := s.Subscriptions(ctx)
	if err != nil {
		return nil, err
	}
	return list, s.WithLists(list)
}

// WithLists reads the lists of feeds Subscriptions returned, in place:
// for a caller that planning needs them for only now and then.
func (s *Store) WithLists(list []Feed) error {
	for i := range list {
		if err := s.readLists(&list[i]); err != nil {
			return err
		}
	}
	return nil
}

// Subscriptions returns every feed without its lists (Seen and History
// nil; Postings counts History), by id: what listing them and their
// metrics read.
func (s *Store) Subscriptions(ctx context.Context) ([]Feed, error) {
	return s.SubscriptionsAfter(ctx, "", -1)
}

// SubscriptionsAfter is a page of Subscriptions: at most limit feeds (all
// for a negative limit) whose ids sort after after ("" from the first).
func (s *Store) SubscriptionsAfter(ctx context.Context, after string, limit int) ([]Feed, error) {
	var out []Feed
	for kv, err := range s.db.BucketScanAfter(ctx, Bucket, "f/", after) {
		if err != nil {
			return nil, err
		}
		if len(out) == limit {
			break
		}
		var f Feed
		if err := decode(kv[1], &f); err != nil {
			return nil, fmt.Errorf("feeds: feed %s: %w", kv[0], err)
		}
		withoutLists(&f)
		out = append(out, f)
	}
	return out, nil
}

// Fetch is what one poll of a feed came to.
type Fetch struct {
	// URL is where Body was served from, after redirects, the base of its
	// relative item links; "" for the feed's own URL.
	URL    string
	At     time.Time
	Status int // 0 when the request failed
	ETag   string
	// LastModified is the response's Last-Modified header.
	LastModified string
	Body         []byte
	// Copy is when the crawler stored Body (Absorb); zero for a body
	// fetched otherwise.
	Copy time.Time
	Err  error // network failure
	// Awaits is the target of a temporary redirect the poll waits for
	// (Absorb): the feed's Awaits.
	Awaits string
}

// Cuts is what reading a feed's body left out or shortened, with the
// limits it kept to: the feed's state says so (Feed.LastCuts), since a cut
// that nothing reports is a feed that seems to post less than it does.
type Cuts struct {
	// Items counts the items past MaxItems (feeds.max_items), not read;
	// the crawler is not offered their links either.
	Items    int `json:"items,omitempty"`
	MaxItems int `json:"max_items,omitempty"`
	// Titles counts titles cut at MaxTitleBytes; Links the item links
	// dropped (not http or https, or over MaxLinkBytes); Keys the GUIDs
	// and links over MaxKeyBytes hashed into their item's key.
	Titles int `json:"titles,omitempty"`
	Links  int `json:"links,omitempty"`
	Keys   int `json:"keys,omitempty"`
}

// String says what was cut, naming the limits; "" for nothing.
func (c Cuts) String() string {
	var out []string
	if c.Items > 0 {
		out = append(out, fmt.Sprintf("%d items past feeds.max_items (%d) not read", c.Items, c.MaxItems))
	}
	if c.Titles > 0 {
		out = append(out, fmt.Sprintf("%d titles cut at %d bytes", c.Titles, MaxTitleBytes))
	}
	if c.Links > 0 {
		out = append(out, fmt.Sprintf("%d item links dropped (not http or https, or over %d bytes)", c.Links, MaxLinkBytes))
	}
	if c.Keys > 0 {
		out = append(out, fmt.Sprintf("%d GUIDs or links over %d bytes keyed by their hash", c.Keys, MaxKeyBytes))
	}
	return strings.Join(out, "; ")
}

// Update is what Record found.
type Update struct {
	New []StoredItem
	// Truncated counts the items past feeds.max_items, as Cuts.Items.
	Truncated int
	// Cuts is what the body read left out or shortened, as the feed's
	// LastCuts; zero when no body was read.
	Cuts Cuts
	// Failed is why the poll failed, as recorded in the feed's LastError
	// (a fetch outcome, an HTTP status, a body that is not a feed); empty
	// when it succeeded.
	Failed string
	// Moves are the permanent redirects the feed followed in this poll,
	// oldest first: its URL is the last one's To.
	Moves []Move
	// Awaits is the target of a temporary redirect the crawler has not
	// fetched since the feed's last poll: once it has, Absorb reads it.
	Awaits string
}

// BodyError is a fetched body that is not a feed Record can read
// (malformed, HTML, too large): recorded as the feed's last error, with
// nothing stored lost.
type BodyError struct {
	URL string
	Err error
}

func (e *BodyError) Error() string { return "feeds: " + e.URL + ": " + e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// Record applies one poll of feed id in one batch: validators, counts and,
// for a 2xx body that parses, the items not seen before. A body that does
// not parse (malformed, HTML, too large) is recorded as the feed's last
// error and returned; the items, history and validators already stored stay.
func (s *Store) Record(ctx context.Context, id string, r Fetch) (Update, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.Get(id)
	if err != nil {
		return Update{}, err
	}
	prevFetch := f.LastFetch
	f.LastFetch, f.LastStatus, f.LastError, f.Awaits = r.At, r.Status, "", r.Awaits
	if re := (*RedirectError)(nil); !errors.As(r.Err, &re) {
		f.Redirects = nil // a chain of redirects ends at a fetch that is not one
	}
	f.Fetches++
	var up Update
	var parseErr error
	b := s.db.NewBatch(ctx)
	defer b.Close()
	switch {
	case r.Err != nil:
		f.LastError = r.Err.Error()
	case r.Status == 304 && r.Body == nil:
		f.NotModified++
	case r.Status == 304 || r.Status >= 200 && r.Status < 300:
		if r.Status == 304 { // the body is a stored copy the feed has not read
			f.NotModified++
		}
		p, err := ParseAt(r.Body, cmp.Or(r.URL, f.URL), s.cfg.MaxBytes, s.cfg.MaxItems)
		if err != nil {
			parseErr = &BodyError{URL: f.URL, Err: err}
			f.LastError = err.Error()
			break
		}
		f.ETag, f.LastModified = r.ETag, r.LastModified
		f.Read = clock.Later(f.Read, r.Copy)
		if p.Title != "" {
			f.Title = p.Title
		}
		up.Truncated = p.Truncated
		f.LastCuts = Cuts{Items: p.Truncated, Titles: p.TitlesCut, Links: p.LinksDropped, Keys: p.KeysHashed}
		if p.Truncated > 0 {
			f.LastCuts.MaxItems = s.cfg.MaxItems
		}
		up.Cuts = f.LastCuts
		if up.New, err = s.addItems(ctx, b, &f, p.Items, r.At, prevFetch); err != nil {
			return Update{}, err
		}
	default:
		f.LastError = fmt.Sprintf("HTTP %d", r.Status)
	}
	// The lists change with new items only: a poll that found none (most
	// are 304s) rewrites the small record alone.
	if err := s.put(b, &f, len(up.New) > 0); err != nil {
		return Update{}, err
	}
	if err := b.Commit(); err != nil {
		return Update{}, err
	}
	up.Failed, up.Awaits = f.LastError, f.Awaits
	return up, parseErr
}

func (s *Store) addItems(ctx context.Context, b *repo.Batch, f *Feed, items []Item, at, prevFetch time.Time) ([]StoredItem, error) {
	seen := make(map[string]bool, len(f.Seen))
	for _, k := range f.Seen {
		seen[k] = true
	}
	var added []StoredItem
	var keys []string // added's
	// Feeds list newest first; store oldest first so first-seen order and
	// history stay in posting order.
	for _, it := range slices.Backward(items) {
		if seen[it.Key] {
			continue
		}
		seen[it.Key] = true
		posted, _ := PostingTime(it.Published, at, prevFetch, s.cfg.ClockSkew)
		si := StoredItem{FeedID: f.ID, Key: it.Key, Title: it.Title, Link: it.Link, Published: it.Published, Posted: posted, FirstSeen: at}
		v, err := encode(si)
		if err != nil {
			return nil, err
		}
		k := itemKey16(f.ID, at, it.Key)
		rk, err := riverKey(k)
		if err != nil {
			return nil, err
		}
		if err := b.PutBucket(Bucket, k, v); err != nil {
			return nil, err
		}
		if err := b.PutBucket(Bucket, rk, []byte(k)); err != nil {
			return nil, err
		}
		f.Seen = append(f.Seen, it.Key)
		f.History = append(f.History, posted)
		if !prevFetch.IsZero() {
			f.Delays = append(f.Delays, at.Sub(posted))
		}
		added, keys = append(added, si), append(keys, k)
	}
	// Forget the oldest keys and the items stored under them.
	if over := len(f.Seen) - s.cfg.SeenKept; over > 0 {
		f.Seen = slices.Clone(f.Seen[over:])
	}
	if over := len(f.History) - s.cfg.HistoryKept; over > 0 {
		f.History = slices.Clone(f.History[over:])
	}
	if over := len(f.Delays) - delaysKept; over > 0 {
		f.Delays = slices.Clone(f.Delays[over:])
	}
	stored := make([]keyedItem, len(added))
	for i := range added {
		stored[i] = keyedItem{keys[i], &added[i]}
	}
	return added, s.trimItems(ctx, b, f.ID, stored)
}

// keyedItem is an item's key and, once read, the item.
type keyedItem struct {
	key  string
	item *StoredItem
}

// trimItems keeps the newest feeds.seen_kept items of a feed (itemOrder):
// those committed (the scan) and those this batch adds (added, first seen
// after them). Keys order items by first-seen time alone, so when the cut
// falls among the items of one poll, those are read and ordered by their
// posting times.
func (s *Store) trimItems(ctx context.Context, b *repo.Batch, id string, added []keyedItem) error {
	var all []keyedItem
	for kv, err := range s.db.BucketScan(ctx, Bucket, "i/"+id+"/") {
		if err != nil {
			return err
		}
		all = append(all, keyedItem{key: string(kv[0])})
	}
	all = append(all, added...)
	over := len(all) - s.cfg.SeenKept
	if over <= 0 {
		return nil
	}
	// The poll at the cut: all[lo:hi] share its first-seen time.
	stamp := func(k keyedItem) string { return k.key[len("i/")+len(id)+1:][:16] }
	if over < len(all) && stamp(all[over-1]) == stamp(all[over]) {
		lo, hi := over, over
		for lo > 0 && stamp(all[lo-1]) == stamp(all[over]) {
			lo--
		}
		for hi < len(all) && stamp(all[hi]) == stamp(all[over]) {
			hi++
		}
		run := all[lo:hi]
		for i := range run {
			if run[i].item != nil {
				continue
			}
			v, err := s.db.Bucket(Bucket, run[i].key)
			if err != nil {
				return err
			}
			it, err := decodeItem([]byte(run[i].key), v)
			if err != nil {
				return err
			}
			run[i].item = &it
		}
		slices.SortFunc(run, func(a, b keyedItem) int { return itemOrder(*a.item, *b.item) })
	}
	for _, k := range all[:over] {
		if err := deleteItem(b, k.key); err != nil {
			return err
		}
	}
	return nil
}

// deleteItem deletes the item stored under key and its river entry.
func deleteItem(b *repo.Batch, key string) error {
	rk, err := riverKey(key)
	if err != nil {
		return err
	}
	if err := b.DeleteBucket(Bucket, key); err != nil {
		return err
	}
	return b.DeleteBucket(Bucket, rk)
}

// Items returns feed id's stored items first seen after since, oldest
// first (itemOrder). Item keys order a feed's items by first-seen time, so
// it reads from the first item after since, not every item stored.
func (s *Store) Items(ctx context.Context, id string, since time.Time) ([]StoredItem, error) {
	after := ""
	switch {
	case since.After(lastItemTime):
		return nil, nil
	case !since.Before(time.Unix(0, 0)):
		// Past every key of a first-seen time at or before since: its
		// hash is lower-case hex, so below 0xff.
		after = itemTime(since) + "/\xff"
	}
	var out []StoredItem
	for kv, err := range s.db.BucketScanAfter(ctx, Bucket, "i/"+id+"/", after) {
		if err != nil {
			return nil, err
		}
		it, err := decodeItem(kv[0], kv[1])
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	slices.SortFunc(out, itemOrder)
	return out, nil
}

// River returns every feed's items first seen after since, newest first
// (itemOrder reversed), at most limit. It reads the river index from its
// newest end, so it costs the items it returns, not the items stored.
func (s *Store) River(ctx context.Context, since time.Time, limit int) ([]StoredItem, error) {
	var keys []string
	var last time.Time // first seen of the last item taken
	for kv, err := range s.db.BucketScan(ctx, Bucket, "r/") {
		if err != nil {
			return nil, err
		}
		at, err := riverTime(kv[0])
		if err != nil {
			return nil, err
		}
		if !at.After(since) {
			break
		}
		// Past the limit, only the items first seen with the last one
		// taken: which of them are newest is decided by their posting
		// times, below.
		if len(keys) >= limit && !at.Equal(last) {
			break
		}
		keys = append(keys, string(kv[1]))
		last = at
	}
	out := make([]StoredItem, 0, len(keys))
	for _, k := range keys {
		v, err := s.db.Bucket(Bucket, k)
		if errors.Is(err, repo.ErrNotFound) {
			continue // trimmed while its entry was being indexed
		}
		if err != nil {
			return nil, err
		}
		it, err := decodeItem([]byte(k), v)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b StoredItem) int { return itemOrder(b, a) })
	return out[:min(len(out), limit)], nil
}

// itemOrder orders items by first-seen time, then, among the items one poll
// found, by posting time, then by feed and key: the keys alone order a
// poll's items by a hash.
func itemOrder(a, b StoredItem) int {
	return cmp.Or(a.FirstSeen.Compare(b.FirstSeen), a.Posted.Compare(b.Posted),
		cmp.Compare(a.FeedID, b.FeedID), cmp.Compare(a.Key, b.Key))
}

func decodeItem(key, v []byte) (StoredItem, error) {
	var it StoredItem
	if err := decode(v, &it); err != nil {
		return StoredItem{}, fmt.Errorf("feeds: item %s: %w", key, err)
	}
	return it, nil
}

// put writes f's record and, withLists, its lists apart.
func (s *Store) put(b *repo.Batch, f *Feed, withLists bool) error {
	f.Postings = len(f.History)
	record := *f
	record.Seen, record.History = nil, nil
	v, err := encode(record)
	if err != nil {
		return err
	}
	if err := b.PutBucket(Bucket, "f/"+f.ID, v); err != nil {
		return err
	}
	if !withLists {
		return nil
	}
	lists, err := encode(feedLists{Seen: f.Seen, History: f.History})
	if err != nil {
		return err
	}
	return b.PutBucket(Bucket, "l/"+f.ID, lists)
}

// itemKey16 orders a feed's items by first-seen time (itemTime), then a
// hash of the item key.
func itemKey16(id string, at time.Time, key string) string {
	h := sha256.Sum256([]byte(key))
	return "i/" + id + "/" + itemTime(at) + "/" + hex.EncodeToString(h[:6])
}

// itemTime is an item key's first-seen part: 16 hex digits of
// nanoseconds since 1970 (2^63 fits).
func itemTime(at time.Time) string { return fmt.Sprintf("%016x", uint64(at.UnixNano())) }

// lastItemTime is the latest first-seen time an item key can hold (Unix
// nanoseconds in an int64).
var lastItemTime = time.Unix(0, math.MaxInt64)

// riverKey is the river index's key for the item stored under itemKey
// ("i/<id>/<first seen>/<hash>"): "r/<first seen, complemented>/<id>/<hash>",
// so that the newest items come first in key order.
func riverKey(itemKey string) (string, error) {
	parts := strings.Split(itemKey, "/")
	if len(parts) != 4 || parts[0] != "i" {
		return "", fmt.Errorf("feeds: item key %q: want i/<id>/<first seen>/<hash>", itemKey)
	}
	ns, err := strconv.ParseUint(parts[2], 16, 64)
	if err != nil || len(parts[2]) != 16 {
		return "", fmt.Errorf("feeds: item key %q: first seen %q is not 16 hex digits", itemKey, parts[2])
	}
	return fmt.Sprintf("r/%016x/%s/%s", ^ns, parts[1], parts[3]), nil
}

// riverTime is the first-seen time of a river index key.
func riverTime(key []byte) (time.Time, error) {
	if len(key) < 2+16 {
		return time.Time{}, fmt.Errorf("feeds: river key %q: want r/<first seen>/<id>/<hash>", key)
	}
	ns, err := strconv.ParseUint(string(key[2:2+16]), 16, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("feeds: river key %q: %w", key, err)
	}
	return time.Unix(0, int64(^ns)).UTC(), nil
}

func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("feeds: encode: %w", err)
	}
	return append([]byte{formatV1}, b...), nil
}

func decode(v []byte, into any) error {
	if len(v) == 0 || v[0] != formatV1 {
		return fmt.Errorf("feeds: stored value has format %v, want %d", v[:min(len(v), 1)], formatV1)
	}
	return json.Unmarshal(v[1:], into)
}

// fetchFailure says what the crawler's failed fetch of a feed means, with
// the setting that decided it; "" when the outcome's name says it all.
func fetchFailure(p repo.Page) string {
	switch p.LastOutcome {
	case repo.OutcomeTooLarge:
		return "the body is over crawler.limits.max_body_bytes"
	case repo.OutcomeNotText:
		return "the body is no text (a PDF, an image, an archive), whatever its Content-Type says"
	case repo.OutcomeBadEncoding:
		return "its Content-Encoding is none the crawler undoes (gzip, x-gzip, deflate), or the body does not decode as it says"
	case repo.OutcomeBadContentType:
		// A feed's poll reads more types than crawler.content_types
		// (crawler.feedTypes, a body that looks like XML); a refusal
		// names the type that was neither.
		const why = "is none of crawler.content_types (a feed is served as application/rss+xml, application/atom+xml or text/xml; a feed's poll reads text/plain, application/octet-stream and a body of any type that looks like XML too)"
		if p.ContentType != "" {
			return fmt.Sprintf("its Content-Type %s %s", p.ContentType, why)
		}
		return "its Content-Type " + why
	case repo.OutcomeTimeout:
		return "no whole answer within crawler.timeouts (request, connect, response_header)"
	case repo.OutcomeHTTPError, repo.OutcomeGone, repo.OutcomeThrottled:
		if p.HTTPStatus != 0 {
			return fmt.Sprintf("HTTP %d", p.HTTPStatus)
		}
	}
	return ""
}

// Absorb takes the crawler's latest fetch of feed id from the repository
// (the page record and its stored body) into the feed's state, if the
// crawler fetched it since the feed last recorded a poll: the crawler does
// the polling (robots, politeness, conditional GET), this package reads
// what it got. A copy the feed has not read is read even when the fetch
// found it unchanged: the crawler may have fetched the URL (a link of a
// crawled page) before the feed was subscribed. It reports whether there
// was a new fetch.
//
// A redirect is followed as a feed reader does. A permanent one (301,
// 308) moves the subscription to the target (follow): the feed keeps its
// id, settings, seen keys, history and items, its URL becomes the target
// and MovedFrom the URL before, and if the crawler fetched the target
// after the redirect, that fetch is read at once (Update.Moves says so).
// A temporary one (302, 303, 307) keeps the URL and reads the copy of the
// target the crawler fetched since the feed's last poll, if any; else the
// poll fails and Update.Awaits names the target (kept as Feed.Awaits, so
// Absorb names it again after a restart though nothing was fetched),
// which Absorb reads once the crawler fetched it. A target whose fetch
// brought no copy, or that robots.txt keeps the crawler from, fails the
// poll and ends the wait. A redirect not followed is the poll's error, a
// RedirectError saying why.
func (s *Store) Absorb(ctx context.Context, id string) (Update, bool, error) {
	f, err := s.Get(id)
	if err != nil {
		return Update{}, false, err
	}
	p, err := s.db.Page(f.URL)
	if errors.Is(err, repo.ErrNotFound) {
		return Update{}, false, nil
	}
	if err != nil {
		return Update{}, false, err
	}
	since := clock.Later(f.LastFetch, f.Resubscribed)
	// target is the page of the temporary redirect the URL answers, if the
	// crawler fetched it since the feed's last poll or robots.txt keeps
	// the crawler from it (which records no fetch time).
	var target *repo.Page
	temporary := p.LastOutcome == repo.OutcomeRedirect && p.RedirectTo != "" && !permanent(p.HTTPStatus)
	if temporary {
		switch t, err := s.db.Page(p.RedirectTo); {
		case err == nil && (t.LastFetch.After(since) || t.LastOutcome == repo.OutcomeDisallowed):
			target = &t
		case err != nil && !errors.Is(err, repo.ErrNotFound):
			return Update{}, false, err
		}
	}
	// waiting: the feed's last poll found this redirect and waits for
	// its target (a restarted poller learns it here).
	waiting := temporary && f.Awaits == p.RedirectTo
	if !p.LastFetch.After(since) && (target == nil || !waiting && !target.LastFetch.After(since)) {
		if waiting {
			return Update{Awaits: f.Awaits}, false, nil
		}
		return Update{}, false, nil
	}
	r := Fetch{At: p.LastFetch, Status: p.HTTPStatus, ETag: p.ETag, LastModified: p.LastModified}
	if p.LastOutcome == repo.OutcomeNotModified || p.LastOutcome == repo.OutcomeOK && !p.Version.Equal(p.LastFetch) {
		r.Status = 304 // not modified, or a 200 with the stored body byte for byte
	}
	switch {
	case p.LastOutcome == repo.OutcomeRedirect && p.RedirectTo != "" && permanent(p.HTTPStatus):
		// The crawler queues the target as a URL of its own: the feed
		// moves there, and reads it if the crawler fetched it since.
		mv, err := s.follow(ctx, id, p)
		var refused *RedirectError
		switch {
		case errors.As(err, &refused):
			r.Err = err
		case err != nil:
			return Update{}, false, err
		case mv == nil: // moved meanwhile by another poll
			return Update{}, false, nil
		default:
			up, _, err := s.Absorb(ctx, id)
			up.Moves = append([]Move{*mv}, up.Moves...)
			return up, true, err
		}
	case temporary && target == nil:
		// A temporary redirect: the feed stays, and reads the target's
		// copy once the crawler fetched it (a poll of the target read is
		// one of the feed); till then the poll waits for it
		// (Update.Awaits).
		r.Err = &RedirectError{From: f.URL, To: p.RedirectTo, Status: p.HTTPStatus,
			Why: "a temporary redirect, and the crawler has not fetched the target since the feed's last poll; the feed stays at its URL and reads the target once it has"}
		r.Awaits = p.RedirectTo
	case temporary && target.LastOutcome == repo.OutcomeDisallowed:
		r.Err = &RedirectError{From: f.URL, To: p.RedirectTo, Status: p.HTTPStatus,
			Why: "a temporary redirect to a URL robots.txt keeps the crawler from"}
	case temporary && (target.Version.IsZero() || target.LastOutcome != repo.OutcomeOK && target.LastOutcome != repo.OutcomeNotModified):
		r.At = clock.Later(p.LastFetch, target.LastFetch)
		why := target.LastOutcome.String()
		if w := fetchFailure(*target); w != "" {
			why += ": " + w
		}
		r.Err = fmt.Errorf("fetch outcome redirect: HTTP %d to %s, whose fetch brought no copy (outcome %s)", p.HTTPStatus, p.RedirectTo, why)
	case temporary:
		v, err := s.db.LatestVersion(ctx, p.RedirectTo)
		if err != nil {
			return Update{}, false, err
		}
		r.At = clock.Later(p.LastFetch, target.LastFetch)
		r.Status, r.Body, r.URL = 200, v.Body, p.RedirectTo
	case p.LastOutcome == repo.OutcomeRedirect:
		r.Err = fmt.Errorf("fetch outcome redirect: HTTP %d to a URL that is not http or https (or not a URL); not followed", p.HTTPStatus)
	case p.LastOutcome != repo.OutcomeOK && p.LastOutcome != repo.OutcomeNotModified:
		r.Err = fmt.Errorf("fetch outcome %s", p.LastOutcome)
		if why := fetchFailure(p); why != "" {
			r.Err = fmt.Errorf("fetch outcome %s: %s", p.LastOutcome, why)
		}
	case p.Version.After(f.Read):
		v, err := s.db.LatestVersion(ctx, f.URL)
		if err != nil {
			return Update{}, false, err
		}
		r.Body, r.Copy = v.Body, p.Version
	}
	up, err := s.Record(ctx, id, r)
	return up, true, err
}
