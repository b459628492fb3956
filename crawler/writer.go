package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/crawler/shingle"
	"github.com/deltaq/deltaq/crawler/sitemap"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// maxGroup bounds how many results one batch commits. Grouping lets one
// write-ahead-log sync serve several fetches; each fetch stays atomic.
const maxGroup = 64

// writer is the one goroutine that commits fetch results. Being alone, it
// can read-modify-write page and host records without races, and its
// admission check (is this URL new?) sees every earlier admission.
type writer struct {
	c      *Crawler
	f      *frontier.Frontier
	ctx    context.Context
	onPage func() // after each page result commits, before its links are published
	known  knownURLs
	// handed remembers the URLs handed over (Options.Handoff): their
	// owner records them, or takes them back through Admit (HandOwn), so
	// a link most pages of a site share is handed over once, not once per
	// page found on, each a message a cluster's deduplication drops.
	handed knownURLs
}

func (c *Crawler) newWriter(ctx context.Context, f *frontier.Frontier) *writer {
	return &writer{c: c, f: f, ctx: ctx, onPage: func() {},
		known: knownURLs{m: map[string]struct{}{}}, handed: knownURLs{m: map[string]struct{}{}}}
}

// maxKnown bounds knownURLs: about 5 MiB of URLs.
const maxKnown = 1 << 16

// knownURLs remembers URLs the repository records, so that the links most
// pages of a site share (navigation, footers) cost one Pebble lookup in
// admit rather than one per page linking them. No page record is ever
// deleted, so a remembered URL is always still known; the set is emptied
// when it reaches maxKnown and refills from the lookups that follow.
type knownURLs struct{ m map[string]struct{} }

func (k *knownURLs) has(url string) bool {
	_, ok := k.m[url]
	return ok
}

func (k *knownURLs) add(url string) {
	if len(k.m) >= maxKnown {
		clear(k.m)
	}
	k.m[url] = struct{}{}
}

// run commits results until the channel closes.
func (w *writer) run(results <-chan *result) error {
	for r := range results {
		group := []*result{r}
	more:
		for len(group) < maxGroup {
			select {
			case r, ok := <-results:
				if !ok {
					break more
				}
				group = append(group, r)
			default:
				break more
			}
		}
		if err := w.commit(group); err != nil {
			// A failed commit is our own failure (disk, corruption): the
			// jobs go back to the queue and the crawl stops.
			for _, r := range group {
				if r.job != nil {
					w.f.Defer(*r.job, time.Time{})
				}
			}
			return err
		}
	}
	return nil
}

// runRounds commits results a round at a time (RunOptions.Rounds): page
// results wait until the frontier says the round is over, then commit in
// queue order, in groups of up to maxGroup. A robots.txt result commits
// at once: the job it stood in for waits for it, and it admits nothing.
func (w *writer) runRounds(results <-chan *result) error {
	var round []*result
	commitRound := func() error {
		slices.SortFunc(round, func(a, b *result) int { return frontier.CompareJobs(*a.job, *b.job) })
		for i := 0; i < len(round); i += maxGroup {
			group := round[i:min(len(round), i+maxGroup)]
			if err := w.commit(group); err != nil {
				for _, r := range round[i:] {
					w.f.Defer(*r.job, time.Time{})
				}
				return err
			}
		}
		round = round[:0]
		return nil
	}
	for {
		over, changed := w.f.RoundOver(len(round))
		if over && len(round) > 0 {
			if err := commitRound(); err != nil {
				return err
			}
			continue
		}
		select {
		case r, ok := <-results:
			if !ok {
				return commitRound() // the workers stopped: no more joins
			}
			if r.job != nil {
				round = append(round, r)
				continue
			}
			if err := w.commit([]*result{r}); err != nil {
				for _, r := range round {
					w.f.Defer(*r.job, time.Time{}) // back to the queue, as run does
				}
				return err
			}
		case <-changed:
		}
	}
}

// done is what to tell the frontier about a job once its batch committed.
type done struct {
	job       frontier.Job
	notBefore time.Time
	unfetched bool // robots.txt disallowed it: no request was made
}

func (w *writer) commit(group []*result) error {
	w.c.commitMu.Lock()
	defer w.c.commitMu.Unlock()
	b := w.c.db.NewBatch(w.ctx)
	defer b.Close()
	a := w.begin(b)
	var dones []done
	for _, r := range group {
		var d *done
		var err error
		if r.job == nil {
			err = a.applyRobots(r)
		} else {
			d, err = a.applyPage(r)
		}
		if err != nil {
			return err
		}
		if d != nil {
			dones = append(dones, *d)
		}
	}
	if err := a.finish(); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("crawler: commit: %w", err)
	}
	// MaxPages counts each page before its links are published, so that a
	// run told to stop does not start on them.
	for _, d := range dones {
		if !d.unfetched {
			w.onPage()
		}
	}
	w.f.Publish(a.queued...)
	for _, q := range a.queued {
		w.known.add(q.URL)
	}
	a.handOver()
	for _, d := range dones {
		w.f.Done(d.job, frontier.DoneInfo{NotBefore: d.notBefore, Unfetched: d.unfetched})
	}
	if w.c.onFetched != nil && len(dones) > 0 {
		urls := make([]string, len(dones))
		for i, d := range dones {
			urls[i] = d.job.URL
		}
		w.c.onFetched(urls)
	}
	for host, h := range a.hostInfo {
		w.c.hosts.put(host, h)
	}
	if a.changes > 0 && w.c.onCommit != nil {
		w.c.onCommit()
	}
	if w.c.onYield != nil {
		for _, y := range a.yields {
			w.c.onYield(y.x, y.y)
		}
	}
	return nil
}

// apply is the state of one batch being built.
type apply struct {
	w        *writer
	b        *repo.Batch
	now      time.Time
	hosts    map[string]*repo.HostState // host records read and changed in this batch
	hostInfo map[string]*hostInfo       // cache entries to publish after commit
	queued   []repo.QueueItem
	changes  int
	yields   []yieldOf // reported to Options.OnYield after commit
	handoffs []Handoff // URLs Options.Route sends elsewhere, handed over after commit
	// direct admits this node's own new URLs even with Options.HandOwn,
	// and without routing them again: Admit, taking back what was handed
	// over (see Admit).
	direct bool
	// sitemapFiles admits the sitemaps robots.txt names: like robots.txt
	// they are how pages are found, not pages, so the include rules, which
	// choose pages, do not keep them out (an exclude rule still does).
	sitemapFiles bool
}

type yieldOf struct {
	x string
	y repo.DiscoveryYield
}

func (w *writer) begin(b *repo.Batch) *apply {
	return &apply{w: w, b: b, now: w.c.clock.Now(), hosts: map[string]*repo.HostState{}, hostInfo: map[string]*hostInfo{}}
}

// host returns the record of a host for change within this batch.
func (a *apply) host(name string) (*repo.HostState, error) {
	if h, ok := a.hosts[name]; ok {
		return h, nil
	}
	h, err := a.b.Host(name)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return nil, err
	}
	h.Host = name
	a.hosts[name] = &h
	return &h, nil
}

// finish writes the changed host records.
func (a *apply) finish() error {
	for _, h := range a.hosts {
		if err := a.b.PutHost(h); err != nil {
			return err
		}
	}
	return nil
}

func (a *apply) applyRobots(r *result) error {
	if r.res.outcome == repo.OutcomeRefused {
		// The host stays deferred in memory only: a run that allows private
		// addresses must not find it deferred for robots.error_defer.
		return nil
	}
	h, err := a.host(r.robotsHost)
	if err != nil {
		return err
	}
	first := h.RobotsFetched.IsZero()
	// What the worker decided from the same record, so that the store
	// and the host cache hold one state, stamped at one time.
	h.SetRobots(&r.robotsState)
	if !first || !a.w.c.cfg.Sitemaps {
		return nil
	}
	// First contact: queue the sitemaps robots.txt names, and /sitemap.xml.
	maps := append([]string{r.robotsScheme + "://" + r.robotsHost + "/sitemap.xml"}, r.robotsSitemaps...)
	src := &repo.Page{URL: r.robotsScheme + "://" + r.robotsHost + "/robots.txt"}
	a.sitemapFiles = true
	defer func() { a.sitemapFiles = false }()
	for _, m := range maps {
		n, err := urlnorm.Normalize(m)
		if err != nil {
			continue
		}
		if _, err := a.admit(src, n, repo.ReasonSitemap, 0, ""); err != nil {
			return err
		}
	}
	return nil
}

// applyPage records one page fetch: the page record, its fetch log line,
// a new version if the content changed, the link graph, new URLs, the
// change feed entry and the host's back-off.
func (a *apply) applyPage(r *result) (*done, error) {
	c := a.w.c
	job := *r.job
	p, err := a.b.Page(job.URL)
	if errors.Is(err, repo.ErrNotFound) {
		p = repo.Page{URL: job.URL, FirstSeen: a.now}
	} else if err != nil {
		return nil, err
	}
	wasIndexable := p.Indexable()
	oldTextHash := p.TextHash
	// A page fetched for the first time has no fetch line and no out-links
	// stored: recording them skips the scans for old ones.
	logFetch, setOutLinks := a.b.LogFetch, a.b.SetOutLinks
	if p.LastFetch.IsZero() {
		logFetch, setOutLinks = a.b.LogFirstFetch, a.b.SetFirstOutLinks
	}
	rec := repo.FetchRecord{At: a.now, Took: r.res.took, Reason: job.Reason, Outcome: r.res.outcome,
		HTTPStatus: r.res.status, Bytes: len(r.res.body), Difference: -1}
	p.LastOutcome, p.HTTPStatus = r.res.outcome, r.res.status
	c.counters.outcome(r.res.outcome)
	// A URL robots.txt disallowed was never requested: there is no fetch
	// to count, log or spend the budget on.
	fetched := r.res.outcome != repo.OutcomeDisallowed
	if fetched {
		p.LastFetch = a.now
		p.Fetches++
	}
	h, err := a.host(job.Host)
	if err != nil {
		return nil, err
	}
	newURLs, notBefore, err := a.applyOutcome(&p, r, h, &rec, setOutLinks)
	if err != nil {
		return nil, err
	}
	a.feedChange(&p, wasIndexable, oldTextHash)
	if fetched {
		if err := logFetch(p.URL, &rec); err != nil {
			return nil, err
		}
	}
	if err := a.yield(&p, r.res.outcome, newURLs); err != nil {
		return nil, err
	}
	if err := a.b.PutPage(&p); err != nil {
		return nil, err
	}
	if err := a.w.f.Complete(a.b, job, fetched); err != nil {
		return nil, err
	}
	if fetched {
		c.counters.class(job.Class)
	}
	return &done{job: job, notBefore: notBefore, unfetched: !fetched}, nil
}

// applyOutcome updates p, its host's record h and the fetch line rec as
// the response's outcome calls for. Only a 200 and a redirect lead to new
// URLs, which it returns; only a throttled host sets a time before which
// the job must not be handed out again, which it returns too.
func (a *apply) applyOutcome(p *repo.Page, r *result, h *repo.HostState, rec *repo.FetchRecord, setOutLinks func(string, []repo.Link) error) (newURLs []string, notBefore time.Time, err error) {
	c := a.w.c
	job := *r.job
	requeued := false // a retry was queued
	switch r.res.outcome {
	case repo.OutcomeOK:
		a.calm(p, job.Host, h)
		newURLs, err = a.applyContent(p, r, rec, setOutLinks)
	case repo.OutcomeNotModified:
		a.calm(p, job.Host, h)
		c.counters.unchanged.Add(1)
	case repo.OutcomeGone:
		p.State = repo.StateGone
		a.calm(p, job.Host, h)
		err = setOutLinks(p.URL, nil)
	case repo.OutcomeRedirect:
		p.State = repo.StateRedirect
		a.calm(p, job.Host, h)
		newURLs, err = a.redirect(p, r, setOutLinks)
	case repo.OutcomeThrottled:
		notBefore, requeued, err = a.throttle(p, job, h, r.res.header)
	case repo.OutcomeNetworkError, repo.OutcomeTimeout, repo.OutcomeHTTPError:
		if r.res.outcome != repo.OutcomeHTTPError || r.res.status >= 500 {
			wait := c.gate.backoff(p.Failures+1, 0, false)
			requeued, err = a.retry(p, job, a.now.Add(wait))
		}
	case repo.OutcomeBadContentType:
		// The body was refused, but the type it came with is what the
		// record, `deltaq page explain` and a feed's error name.
		p.ContentType = refusedType(r.res.contentType)
		c.logger.Debug("Content-Type refused", "url", p.URL, "content_type", p.ContentType, "feed", r.asFeed)
		fallthrough
	case repo.OutcomeTooLarge, repo.OutcomeBadEncoding, repo.OutcomeNotText:
		if r.res.err != nil { // names the limit, or the Content-Encoding
			c.logger.Debug("body refused", "url", p.URL, "outcome", r.res.outcome, "err", r.res.err)
		}
		fallthrough
	default: // disallowed, refused, limit
		if p.Version.IsZero() {
			p.State = repo.StateFailed
		}
	}
	if p.State == repo.StateQueued && !requeued {
		// Fetched, never successfully, and queued no more (a 403, a 304
		// nobody asked for, the last retry spent): "queued" would read as
		// on its way to a fetch, which every re-fetch path skips for ever.
		p.State = repo.StateFailed
	}
	return newURLs, notBefore, err
}

// applyContent stores a 200 response's body and out-links on p, admits
// the new URLs among the links and returns them. The page counts as new
// on its first fetch, else as changed or unchanged by its stored copy.
func (a *apply) applyContent(p *repo.Page, r *result, rec *repo.FetchRecord, setOutLinks func(string, []repo.Link) error) ([]string, error) {
	changed, err := a.storeContent(p, r, rec)
	if err != nil {
		return nil, err
	}
	if p.Fetches == 1 {
		a.w.c.counters.newPages.Add(1)
	} else if changed {
		a.w.c.counters.changed.Add(1)
	} else {
		a.w.c.counters.unchanged.Add(1)
	}
	return a.links(p, r, setOutLinks)
}

// throttle backs a host off after it asked to be left alone, for as long
// as its Retry-After or the next step of the back-off says, and queues
// another attempt at p for when that ends. It returns that time: the job
// must not be handed out before it either.
func (a *apply) throttle(p *repo.Page, job frontier.Job, h *repo.HostState, header http.Header) (time.Time, bool, error) {
	h.Backoffs++
	wait, given := retryAfter(header, a.now)
	until := a.now.Add(a.w.c.gate.backoff(h.Backoffs, wait, given))
	h.BackoffUntil = until
	a.publishBackoff(job.Host, h)
	requeued, err := a.retry(p, job, until)
	return until, requeued, err
}

// feedChange tells the index what a fetch changed, through the change
// feed: an upsert when p became indexable or its text changed, a delete
// when it stopped being indexable. Text hashes, not versions, decide, so
// that a change of markup alone gives the index nothing to redo.
func (a *apply) feedChange(p *repo.Page, wasIndexable bool, oldTextHash uint64) {
	var kind repo.ChangeKind
	switch {
	case p.Indexable() && (!wasIndexable || p.TextHash != oldTextHash):
		kind = repo.ChangeUpsert
	case wasIndexable && !p.Indexable():
		kind = repo.ChangeDelete
	default:
		return
	}
	a.b.AppendChange(p.URL, kind, a.now)
	a.changes++
}

// maxRefusedType bounds the Content-Type a refused response leaves on its
// page record: a header may be up to 1 MiB long.
const maxRefusedType = 200

// refusedType is the Content-Type of a refused response as recorded: ""
// when none was sent, else at most maxRefusedType bytes, whole UTF-8
// characters, marked with "…" when cut.
func refusedType(ct string) string {
	ct = strings.ToValidUTF8(strings.TrimSpace(ct), "\uFFFD")
	if len(ct) <= maxRefusedType {
		return ct
	}
	cut := maxRefusedType
	for cut > 0 && !utf8.RuneStart(ct[cut]) {
		cut--
	}
	return ct[:cut] + "…"
}

// yield records N(x) as observed (thesis §3.2): a re-fetch of an old page
// yields the new URLs it linked to, possibly none; a first fetch of a new
// page yields its new URLs to the old page at the root of its chain.
func (a *apply) yield(p *repo.Page, outcome repo.Outcome, fresh []string) error {
	if outcome != repo.OutcomeOK && outcome != repo.OutcomeNotModified {
		return nil
	}
	x := rootOf(p)
	if x == "" || (x != p.URL && len(fresh) == 0) {
		return nil
	}
	y := repo.DiscoveryYield{At: a.now, New: fresh}
	a.yields = append(a.yields, yieldOf{x: x, y: y})
	if len(fresh) == 0 {
		return nil // nothing to keep; the observation still goes to OnYield
	}
	return a.b.AddDiscoveryYield(x, &y)
}

// storeContent updates p from a 200 response and adds a version when the
// body differs from the stored one. It reports whether a stored copy
// changed. The change feed looks at TextHash instead: a change of markup
// alone gives a new version but nothing new to index.
func (a *apply) storeContent(p *repo.Page, r *result, rec *repo.FetchRecord) (bool, error) {
	p.State = repo.StateLive
	p.ETag = r.res.header.Get("ETag")
	p.LastModified = r.res.header.Get("Last-Modified")
	p.ContentType = r.res.contentType
	p.NoIndex, p.NoFollow = r.noIndex, r.noFollow
	if r.doc != nil {
		p.Title = r.doc.Title
	}
	had := !p.Version.IsZero()
	if had && p.ContentHash == r.bodyHash {
		return false, nil // byte-identical body
	}
	if had && len(p.Signature) > 0 && len(r.sig) > 0 {
		var old, cur shingle.Signature
		if old.UnmarshalBinary(p.Signature) == nil && cur.UnmarshalBinary(r.sig) == nil {
			rec.Difference = shingle.Difference(old, cur)
		}
	}
	v := repo.Version{FetchedAt: a.now, ContentType: r.res.contentType, ContentHash: r.bodyHash,
		Signature: r.sig, Body: r.res.body}
	if r.doc != nil {
		v.Title, v.Text = r.doc.Title, r.doc.Text
	}
	addVersion := a.b.AddVersion
	if !had {
		addVersion = a.b.AddFirstVersion
	}
	if err := addVersion(p.URL, &v); err != nil {
		return false, err
	}
	p.Version = a.now
	p.Signature = r.sig
	p.ContentHash, p.TextHash = r.bodyHash, r.textHash
	if had {
		rec.Changed = true
		p.LastChange = a.now
		p.Changes++
	}
	return had, nil
}

// links records a page's out-links with setOutLinks and admits the new
// ones.
func (a *apply) links(p *repo.Page, r *result, setOutLinks func(string, []repo.Link) error) ([]string, error) {
	var out []repo.Link
	var follow []repo.Link
	switch {
	case r.doc != nil:
		for _, l := range r.doc.Links {
			rl := repo.Link{URL: l.URL, Kind: linkKind(l.Kind)}
			out = append(out, rl)
			if !l.NoFollow && !p.NoFollow {
				follow = append(follow, rl)
			}
		}
	case r.feed != nil:
		base, err := url.Parse(p.URL)
		if err != nil {
			return nil, nil
		}
		// A sitemap may list tens of thousands of entries: the base is
		// normalized once, and each entry resolved once.
		res, err := urlnorm.NewResolver(base)
		if err != nil {
			return nil, nil
		}
		if f := r.feed.Format; r.feed.Dropped > 0 && a.w.c.cfg.Sitemap.FeedItems > 0 && (f == sitemap.FormatRSS || f == sitemap.FormatAtom) {
			// The feed aggregator reads the first feeds.max_items items
			// alone; the links of the others are not offered either.
			a.w.c.logger.Info("feed items past feeds.max_items not offered", "url", p.URL, "n", r.feed.Dropped, "limit", a.w.c.cfg.Sitemap.FeedItems)
		}
		for _, e := range r.feed.URLs {
			u, err := res.Resolve(e.Loc)
			if err != nil {
				continue
			}
			out = append(out, repo.Link{URL: u, Kind: repo.LinkSitemap})
			if err := a.sitemapDate(u, e.LastMod); err != nil {
				return nil, err
			}
		}
		for _, e := range r.feed.Sitemaps {
			if u, err := res.Resolve(e.Loc); err == nil {
				out = append(out, repo.Link{URL: u, Kind: repo.LinkSitemap})
			}
		}
		follow = out
	}
	if err := setOutLinks(p.URL, out); err != nil {
		return nil, err
	}
	var fresh []string
	reason := repo.ReasonLink
	if r.feed != nil {
		reason = repo.ReasonSitemap
	}
	root := rootOf(p)
	for _, l := range follow {
		ok, err := a.admit(p, l.URL, reason, 0, root)
		if err != nil {
			return nil, err
		}
		if ok {
			fresh = append(fresh, l.URL)
		}
	}
	return fresh, nil
}

// sitemapDate keeps a sitemap entry's <lastmod> on the page of a known URL.
func (a *apply) sitemapDate(u string, lastMod time.Time) error {
	if lastMod.IsZero() {
		return nil
	}
	p, err := a.b.Page(u)
	if errors.Is(err, repo.ErrNotFound) {
		return nil // not known yet: no record to keep it on
	}
	if err != nil {
		return err
	}
	if !lastMod.After(p.SitemapLastMod) {
		return nil
	}
	p.SitemapLastMod = lastMod
	return a.b.PutPage(&p)
}

// redirect records a redirect with setOutLinks and admits its target as a
// new URL one hop further along the chain.
func (a *apply) redirect(p *repo.Page, r *result, setOutLinks func(string, []repo.Link) error) ([]string, error) {
	// An earlier fetch's target is not where the URL leads now: a redirect
	// with no usable Location records none, and no out-link to it either.
	p.RedirectTo = ""
	target, ok := redirectTarget(p.URL, r.res.header.Get("Location"))
	if !ok {
		return nil, setOutLinks(p.URL, nil)
	}
	p.RedirectTo = target
	if err := setOutLinks(p.URL, []repo.Link{{URL: target, Kind: repo.LinkRedirect}}); err != nil {
		return nil, err
	}
	if p.Hops+1 > a.w.c.cfg.Limits.MaxRedirects {
		a.w.c.counters.limited.Add(1)
		return nil, nil
	}
	ok, err := a.admit(p, target, repo.ReasonLink, p.Hops+1, rootOf(p))
	if err != nil || !ok {
		return nil, err
	}
	return []string{target}, nil
}

// redirectTarget is where a redirect from u with Location loc leads, if
// anywhere usable: not missing, resolvable, and not u itself.
func redirectTarget(u, loc string) (string, bool) {
	base, err := url.Parse(u)
	if err != nil || loc == "" {
		return "", false
	}
	target, err := urlnorm.Resolve(base, loc)
	if err != nil || target == u {
		return "", false
	}
	return target, true
}

// admit records and queues target if it is new and within the limits; it
// reports whether it did. src is the page that led to it and root the old
// page whose re-fetch did (§3.2), "" if none.
func (a *apply) admit(src *repo.Page, target string, reason repo.Reason, hops int, root string) (bool, error) {
	lim := a.w.c.cfg.Limits
	depth := src.Depth + 1
	if reason == repo.ReasonSitemap {
		depth = max(src.Depth, 0) + 1
	}
	if reason != repo.ReasonSeed && !a.w.c.scope.allows(target) {
		return false, nil // seeds define the scope; everything else must fall in it
	}
	if reason != repo.ReasonSeed && (a.sitemapFiles && a.w.c.scope.excluded(target) || !a.sitemapFiles && a.w.c.scope.ruledOut(target)) {
		a.w.c.counters.excluded.Add(1)
		return false, nil
	}
	if len(target) > lim.MaxURLLength || depth > lim.MaxDepth {
		a.w.c.counters.limited.Add(1)
		return false, nil
	}
	if a.w.c.route != nil && !a.direct && !a.w.c.route(target) {
		a.handOff(Handoff{URL: target, Source: src.URL, SourceDepth: src.Depth, Reason: reason})
		return false, nil
	}
	if a.w.known.has(target) {
		return false, nil
	}
	if _, err := a.b.Page(target); err == nil {
		a.w.known.add(target)
		return false, nil
	} else if !errors.Is(err, repo.ErrNotFound) {
		return false, err
	}
	if a.w.c.handOwn && !a.direct {
		a.handOff(Handoff{URL: target, Source: src.URL, SourceDepth: src.Depth, Reason: reason})
		return false, nil
	}
	host := urlnorm.Host(target)
	h, err := a.host(host)
	if err != nil {
		return false, err
	}
	if h.Pages >= lim.MaxPagesPerHost {
		a.w.c.counters.limited.Add(1)
		return false, nil
	}
	h.Pages++
	p := repo.Page{URL: target, State: repo.StateQueued, Depth: depth, Source: src.URL, Root: root, FirstSeen: a.now, Hops: hops}
	if err := a.b.PutPage(&p); err != nil {
		return false, err
	}
	item, err := a.w.f.Enqueue(a.b, target, reason, a.now)
	if err != nil {
		return false, err
	}
	a.queued = append(a.queued, item)
	a.w.c.counters.admitted.Add(1)
	return true, nil
}

// rootOf is the old page a URL found on p is attributed to (thesis §3.2):
// p itself when this fetch re-fetched it, else the root p inherited, so a
// chain of new pages stays attributed to the old page it hangs from.
func rootOf(p *repo.Page) string {
	if p.Fetches > 1 {
		return p.URL
	}
	return p.Root
}

// retry queues another attempt at due, unless the page failed too often.
func (a *apply) retry(p *repo.Page, job frontier.Job, due time.Time) (bool, error) {
	p.Failures++
	if p.Failures > a.w.c.cfg.Limits.MaxRetries {
		return false, nil
	}
	reason := job.Reason
	if reason.IsFirstFetch() {
		reason = repo.ReasonRetry
	}
	item, err := a.w.f.Enqueue(a.b, p.URL, reason, due)
	if err != nil {
		return false, err
	}
	a.queued = append(a.queued, item)
	return true, nil
}

// calm clears p's failure count, which limits its retries, and its
// host's back-off after a successful response.
func (a *apply) calm(p *repo.Page, host string, h *repo.HostState) {
	p.Failures = 0
	if h.Backoffs == 0 && h.BackoffUntil.IsZero() {
		return
	}
	h.Backoffs, h.BackoffUntil = 0, time.Time{}
	a.publishBackoff(host, h)
}

// publishBackoff stages the host cache update for after the commit.
func (a *apply) publishBackoff(host string, h *repo.HostState) {
	old, err := a.w.c.hosts.get(host)
	if err != nil {
		return // the record is committed; the cache reloads it on next use
	}
	info := *old
	info.backoffUntil, info.backoffs = h.BackoffUntil, h.Backoffs
	a.hostInfo[host] = &info
}

func linkKind(k extract.Kind) repo.LinkKind {
	switch k {
	case extract.KindCanonical:
		return repo.LinkCanonical
	case extract.KindFeed:
		return repo.LinkFeed
	case extract.KindRefresh:
		return repo.LinkRefresh
	default:
		return repo.LinkAnchor
	}
}

// Handoff is a URL this crawler found but routes to another (Options.Route):
// what the receiving crawler's Admit needs to admit it as if it had found
// it on the source page itself.
type Handoff struct {
	URL         string      `json:"url"`
	Source      string      `json:"source,omitempty"`
	SourceDepth int         `json:"source_depth"`
	Reason      repo.Reason `json:"reason"`
}

// handOff adds h to the batch's handoffs unless its URL was handed over
// before, in this batch or an earlier one.
func (a *apply) handOff(h Handoff) {
	if a.w.handed.has(h.URL) {
		return
	}
	a.w.handed.add(h.URL)
	a.handoffs = append(a.handoffs, h)
}

// handOver passes the batch's handoffs on, after its commit.
func (a *apply) handOver() {
	for _, h := range a.handoffs {
		a.w.c.handoff(h)
	}
}

// Admit records and queues URLs another crawler handed over (Handoff), in
// one committed batch, as if this crawler had found them on their source
// pages; URLs already known or out of scope are skipped as in a crawl. It
// reports how many were new. It may run while Run does.
//
// The URLs are not routed again: the caller took them for this crawler's
// hosts (a cluster node checks its lease just before), and a lease lapsing
// in between must not hand them over a second time, where deduplication
// would drop them while the caller acknowledges the first copy. A job
// whose host is not this crawler's when it is due waits (RouteWait).
func (c *Crawler) Admit(ctx context.Context, f *frontier.Frontier, hs []Handoff) (int, error) {
	as := make([]admission, len(hs))
	for i, h := range hs {
		as[i] = admission{src: &repo.Page{URL: h.Source, Depth: h.SourceDepth}, url: h.URL, reason: h.Reason}
	}
	return c.admitAll(ctx, f, "admit", true, as, nil, nil)
}

// admission is one URL to admit outside a fetch, with the page that led
// to it.
type admission struct {
	src    *repo.Page
	url    string
	reason repo.Reason
}

// admitAll admits as in one committed batch, taking turns with the
// writer; direct queues this node's own new URLs even with
// Options.HandOwn; before (if set) adds to the batch first, after (if
// set) runs once it committed. It reports how many URLs were new.
func (c *Crawler) admitAll(ctx context.Context, f *frontier.Frontier, what string, direct bool, as []admission, before func(*repo.Batch) error, after func()) (int, error) {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	w := c.newWriter(ctx, f)
	b := c.db.NewBatch(ctx)
	defer b.Close()
	a := w.begin(b)
	a.direct = direct
	if before != nil {
		if err := before(b); err != nil {
			return 0, err
		}
	}
	n := 0
	for _, ad := range as {
		ok, err := a.admit(ad.src, ad.url, ad.reason, 0, "")
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	if err := a.finish(); err != nil {
		return 0, err
	}
	if err := b.Commit(); err != nil {
		return 0, fmt.Errorf("crawler: %s: %w", what, err)
	}
	if after != nil {
		after()
	}
	f.Publish(a.queued...)
	a.handOver()
	return n, nil
}
