package ads

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// Options are the non-configuration inputs of Open.
type Options struct {
	// Clock tells the time for budgets, daily resets and click expiry; nil
	// means the wall clock.
	Clock clock.Clock
	// Logger receives lifecycle messages (Info) and per-click lines
	// (Debug); nil discards.
	Logger *slog.Logger
	// Random supplies impression ids, API keys and a generated secret; nil
	// means crypto/rand.
	Random io.Reader
}

// Store owns advertisers, ads, their statistics and budgets. The
// repository is the truth; the Store keeps in memory only what selection
// needs: advertisers, active ads and the phrase index. It is safe for
// concurrent use.
//
// Lock order: flushMu, then mu, then a phrase's mu or a target's
// persistMu; an advertiser's chargeMu, then one target's persistMu. The
// click path never takes mu while it holds chargeMu.
type Store struct {
	db      *repo.DB
	cfg     Config
	policy  Policy
	loc     *time.Location
	clock   clock.Clock
	logger  *slog.Logger
	random  io.Reader
	links   *clickSigner // set by Open once the secret is known
	clicked *recentSet
	cands   sync.Pool // *[]Candidate, reused by Select

	// flushMu orders writers of statistics records: Flush and the ad
	// mutations take it before mu, so a record is never overwritten with
	// an older snapshot.
	flushMu sync.Mutex

	// mu guards the maps, the targets lists and the fields of ads and
	// targets that mutations change (ad text, bids, priors). Select holds
	// it for reading; counters are atomics.
	mu struct {
		sync.RWMutex
		advertisers    map[uint64]*advertiser
		byKey          map[[32]byte]*advertiser
		ads            map[uint64]*liveAd // active ads only
		phrases        map[string]*phraseEntry
		nextAdvertiser uint64
		nextAd         uint64
	}
}

// advertiser is the in-memory state of an advertiser.
type advertiser struct {
	id      uint64
	name    string
	keyHash [32]byte
	tz      string
	loc     *time.Location
	created time.Time
	active  int // active ads; guarded by Store.mu

	// chargeMu serializes charges and budget changes of this advertiser,
	// so two concurrent clicks cannot both spend the last of the budget.
	chargeMu sync.Mutex
	state    atomic.Pointer[budgetState]
}

// budgetState is replaced as a whole, so readers see budget, spend and
// reset time that belong together.
type budgetState struct {
	budget  Money // d_i; zero: no budget
	spent   Money // spent since the last reset
	resetAt int64 // Unix nanoseconds of the next reset
}

// today returns the budget state as of now, with the spend of a past day
// treated as zero.
func (a *advertiser) today(now time.Time) budgetState {
	st := *a.state.Load()
	if now.UnixNano() >= st.resetAt {
		st.spent = 0
		st.resetAt = nextMidnight(now, a.loc).UnixNano()
	}
	return st
}

func (a *advertiser) public() Advertiser {
	return Advertiser{ID: a.id, Name: a.name, DailyBudget: a.state.Load().budget, TimeZone: a.tz, Created: a.created}
}

// liveAd is an active ad.
type liveAd struct {
	ad      Ad // guarded by Store.mu
	adv     *advertiser
	targets map[string]*target // by phrase; guarded by Store.mu
}

// target is one (ad, phrase) pair a_ij.
type target struct {
	ad     *liveAd
	adID   uint64 // the same as ad.ad.ID, readable without mu
	phrase string
	bid    Money // guarded by Store.mu

	shown  atomic.Int64 // n_ij
	clicks atomic.Int64 // s_ij
	spend  atomic.Int64 // micros, all days
	dirty  atomic.Bool  // counters changed since last written

	// persistMu is held from reading the counters until their record is
	// committed, so that a later write never carries older counts.
	persistMu sync.Mutex
}

func (t *target) record() statsRecord {
	return statsRecord{Impressions: t.shown.Load(), Clicks: t.clicks.Load(), Spend: t.spend.Load()}
}

// phraseEntry is the index entry of a targeted phrase Q_j.
type phraseEntry struct {
	phrase  string
	targets []*target // ascending ad id; guarded by Store.mu

	mu     sync.Mutex
	total  int64 // queries since the phrase was first targeted
	today  int64 // queries since dayEnd − 1 day
	dayEnd int64 // Unix nanoseconds
	dirty  bool
}

// next counts a query of the phrase and returns its n_j.
func (p *phraseEntry) next(now time.Time, loc *time.Location, mode string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.UnixNano() >= p.dayEnd {
		p.today = 0
		p.dayEnd = nextMidnight(now, loc).UnixNano()
	}
	p.total++
	p.today++
	p.dirty = true
	if mode == QueryCountDay {
		return p.today
	}
	return p.total
}

func (p *phraseEntry) snapshot() phraseRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dirty = false
	return phraseRecord{Total: p.total, Today: p.today, DayEnd: p.dayEnd}
}

// nextMidnight returns the first midnight in loc after now: when a day's
// budget resets.
func nextMidnight(now time.Time, loc *time.Location) time.Time {
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, loc)
}

// Open loads the ads state from db and returns a Store ready to serve.
func Open(ctx context.Context, db *repo.DB, cfg Config, opts Options) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pol, err := PolicyByName(cfg.Policy)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(cfg.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("ads: time zone %q: %w", cfg.TimeZone, err)
	}
	s := &Store{
		db: db, cfg: cfg, policy: pol, loc: loc,
		clock: opts.Clock, logger: opts.Logger, random: opts.Random,
		clicked: newRecentSet(cfg.RecentClicks),
	}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With("component", "ads")
	if s.random == nil {
		s.random = rand.Reader
	}
	s.cands.New = func() any { return new([]Candidate) }
	s.mu.advertisers = map[uint64]*advertiser{}
	s.mu.byKey = map[[32]byte]*advertiser{}
	s.mu.ads = map[uint64]*liveAd{}
	s.mu.phrases = map[string]*phraseEntry{}
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	if err := s.pruneClicked(ctx); err != nil {
		return nil, err
	}
	s.logger.Info("ads loaded", "policy", pol.Name(), "advertisers", len(s.mu.advertisers),
		"n", len(s.mu.ads), "phrases", len(s.mu.phrases))
	return s, nil
}

// Policy returns the selection policy in use.
func (s *Store) Policy() Policy { return s.policy }

// Config returns the configuration the Store was opened with.
func (s *Store) Config() Config { return s.cfg }

func (s *Store) load(ctx context.Context) error {
	if err := s.loadSecret(ctx); err != nil {
		return err
	}
	var err error
	if s.mu.nextAdvertiser, err = s.loadCounter(keyNextAdvertiser); err != nil {
		return err
	}
	if s.mu.nextAd, err = s.loadCounter(keyNextAd); err != nil {
		return err
	}
	now := s.clock.Now()
	for kv, err := range s.db.BucketScan(ctx, bucket, prefixAdvertisers) {
		if err != nil {
			return fmt.Errorf("ads: load advertisers: %w", err)
		}
		var r advertiserRecord
		if err := decode(string(kv[0]), kv[1], &r); err != nil {
			return err
		}
		a, err := s.advertiserFromRecord(r, now)
		if err != nil {
			return err
		}
		s.mu.advertisers[a.id] = a
		s.mu.byKey[a.keyHash] = a
	}
	for _, a := range s.mu.advertisers {
		var r spendRecord
		found, err := s.read(keySpend(a.id), &r)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		st := *a.state.Load()
		st.spent, st.resetAt = Money(r.Spent), r.ResetAt
		a.state.Store(&st)
	}
	for kv, err := range s.db.BucketScan(ctx, bucket, prefixAds) {
		if err != nil {
			return fmt.Errorf("ads: load ads: %w", err)
		}
		var r adRecord
		if err := decode(string(kv[0]), kv[1], &r); err != nil {
			return err
		}
		if r.Status != StatusActive {
			continue
		}
		adv := s.mu.advertisers[r.Advertiser]
		if adv == nil {
			return fmt.Errorf("ads: ad %d belongs to unknown advertiser %d", r.ID, r.Advertiser)
		}
		la := &liveAd{ad: r.ad(), adv: adv, targets: map[string]*target{}}
		s.mu.ads[la.ad.ID] = la
		adv.active++
	}
	// Attach targets in ad id order, so each phrase's list is sorted.
	ids := make([]uint64, 0, len(s.mu.ads))
	for id := range s.mu.ads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		la := s.mu.ads[id]
		for _, t := range la.ad.Targets {
			if err := s.attachLocked(la, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Store) advertiserFromRecord(r advertiserRecord, now time.Time) (*advertiser, error) {
	loc, err := time.LoadLocation(r.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("ads: advertiser %d: time zone %q: %w", r.ID, r.TimeZone, err)
	}
	a := &advertiser{id: r.ID, name: r.Name, tz: r.TimeZone, loc: loc, created: r.Created}
	if err := decodeKeyHash(r.KeyHash, &a.keyHash); err != nil {
		return nil, fmt.Errorf("ads: advertiser %d: %w", r.ID, err)
	}
	a.state.Store(&budgetState{budget: Money(r.DailyBudget), resetAt: nextMidnight(now, loc).UnixNano()})
	return a, nil
}

func (s *Store) loadCounter(key string) (uint64, error) {
	v, err := s.db.Bucket(bucket, key)
	if errors.Is(err, repo.ErrNotFound) {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ads: load %s: %w", key, err)
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ads: decode %s: %w", key, err)
	}
	return n, nil
}

func (s *Store) loadSecret(ctx context.Context) error {
	if s.cfg.Secret != "" {
		s.links = newClickSigner([]byte(s.cfg.Secret), s.random)
		return nil
	}
	sec, _, err := s.db.BucketOrCreate(ctx, bucket, keySecret, func() ([]byte, error) {
		sec := make([]byte, 32)
		_, err := io.ReadFull(s.random, sec)
		return sec, err
	})
	if err != nil {
		return fmt.Errorf("ads: secret: %w", err)
	}
	s.links = newClickSigner(sec, s.random)
	return nil
}

// attachLocked adds the (ad, phrase) pair t to the index, loading its
// statistics and the phrase's query counts from the repository. Callers
// hold mu for writing (or own the Store exclusively, as Open does).
func (s *Store) attachLocked(la *liveAd, t Target) error {
	var r statsRecord
	if _, err := s.read(keyStats(la.ad.ID, t.Phrase), &r); err != nil {
		return err
	}
	tg := &target{ad: la, adID: la.ad.ID, phrase: t.Phrase, bid: t.Bid}
	tg.shown.Store(r.Impressions)
	tg.clicks.Store(r.Clicks)
	tg.spend.Store(r.Spend)
	pe := s.mu.phrases[t.Phrase]
	if pe == nil {
		var pr phraseRecord
		if _, err := s.read(keyPhrase(t.Phrase), &pr); err != nil {
			return err
		}
		pe = &phraseEntry{phrase: t.Phrase, total: pr.Total, today: pr.Today, dayEnd: pr.DayEnd}
		s.mu.phrases[t.Phrase] = pe
	}
	i, _ := slices.BinarySearchFunc(pe.targets, la.ad.ID, func(x *target, id uint64) int { return cmp.Compare(x.adID, id) })
	pe.targets = slices.Insert(pe.targets, i, tg)
	la.targets[t.Phrase] = tg
	return nil
}

// Run writes impression and query counts every ads.flush_interval and
// forgets clicked impressions older than ads.click_ttl, until ctx is done;
// then it flushes once more and returns nil.
func (s *Store) Run(ctx context.Context) error {
	for {
		err := s.clock.WaitUntil(ctx, s.clock.Now().Add(s.cfg.FlushInterval))
		if err != nil {
			return s.Flush(context.WithoutCancel(ctx))
		}
		if err := s.Flush(ctx); err != nil {
			s.logger.Error("ads flush", "err", err)
		}
		if err := s.pruneClicked(ctx); err != nil {
			s.logger.Error("ads prune clicks", "err", err)
		}
	}
}

// Close writes the counts not yet written. The repository stays open.
func (s *Store) Close(ctx context.Context) error { return s.Flush(ctx) }

// Flush writes every changed (ad, phrase) and phrase count in one atomic
// batch. Impressions and query counts reach the repository only here (a
// click writes its own counts at once), so a crash loses at most
// ads.flush_interval of them; budgets and charges are never lost.
func (s *Store) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	var targets []*target
	var phrases []*phraseEntry
	s.mu.RLock()
	for _, la := range s.mu.ads {
		for _, tg := range la.targets {
			if tg.dirty.Load() {
				targets = append(targets, tg)
			}
		}
	}
	for _, pe := range s.mu.phrases {
		pe.mu.Lock()
		if pe.dirty {
			phrases = append(phrases, pe)
		}
		pe.mu.Unlock()
	}
	s.mu.RUnlock()
	if len(targets) == 0 && len(phrases) == 0 {
		return nil
	}
	// Lock in a fixed order; a click holds at most one of these locks.
	slices.SortFunc(targets, func(a, b *target) int {
		return cmp.Or(cmp.Compare(a.adID, b.adID), cmp.Compare(a.phrase, b.phrase))
	})
	b := s.db.NewBatch(ctx)
	defer b.Close()
	for _, tg := range targets {
		tg.persistMu.Lock()
		defer tg.persistMu.Unlock()
		tg.dirty.Store(false)
		if err := b.PutBucket(bucket, keyStats(tg.adID, tg.phrase), encode(tg.record())); err != nil {
			return s.flushFailed(targets, phrases, err)
		}
	}
	for _, pe := range phrases {
		if err := b.PutBucket(bucket, keyPhrase(pe.phrase), encode(pe.snapshot())); err != nil {
			return s.flushFailed(targets, phrases, err)
		}
	}
	if err := b.Commit(); err != nil {
		return s.flushFailed(targets, phrases, err)
	}
	s.logger.Debug("ads flushed", "n", len(targets), "phrases", len(phrases))
	return nil
}

func (s *Store) flushFailed(targets []*target, phrases []*phraseEntry, err error) error {
	for _, tg := range targets {
		tg.dirty.Store(true)
	}
	for _, pe := range phrases {
		pe.mu.Lock()
		pe.dirty = true
		pe.mu.Unlock()
	}
	return fmt.Errorf("ads: flush: %w", err)
}
