package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/excerpt"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// feedsCommands builds the feeds subcommands, which share the data
// directory their parent's --data names.
type feedsCommands struct {
	a       *app
	dataDir string
}

// feedsRun is what a subcommand does with the configuration, the
// repository and the feed store open.
type feedsRun = func(ctx context.Context, cfg *configs.Config, db *repo.DB, st *feeds.Store) error

func (a *app) newFeedsCmd() *cobra.Command {
	fc := &feedsCommands{a: a}
	cmd := &cobra.Command{
		Use:   "feeds",
		Short: "Subscribe to RSS/Atom feeds and see when each is polled and why (Sia & Cho)",
	}
	cmd.PersistentFlags().StringVar(&fc.dataDir, "data", "", "data directory (repository)")
	cmd.AddCommand(fc.addCmd(), fc.importCmd(), fc.exportCmd(), fc.listCmd(), fc.rmCmd(), fc.explainCmd(), fc.pollCmd(), fc.discoverCmd())
	return cmd
}

// open loads the configuration and the repository with load, after check
// (nil for none) has passed, opens the feed store and runs run.
func (fc *feedsCommands) open(cmd *cobra.Command, load func(*cobra.Command, string, func(*configs.Config) error) (*configs.Config, *repo.DB, *slog.Logger, error),
	check func(*configs.Config) error, run feedsRun) error {
	cfg, db, _, err := load(cmd, fc.dataDir, check)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := openFeedStore(cmd.Context(), db, cfg)
	if err != nil {
		return err
	}
	return run(cmd.Context(), cfg, db, st)
}

// with opens the repository, which must be there, and the feed store for
// one subcommand.
func (fc *feedsCommands) with(cmd *cobra.Command, run feedsRun) error {
	return fc.open(cmd, fc.a.loadCrawledRepo, nil, run)
}

// subscribing is with for a subcommand that subscribes: it creates the
// repository if need be, after check (nil for none) has passed.
func (fc *feedsCommands) subscribing(cmd *cobra.Command, check func(*configs.Config) error, run feedsRun) error {
	return fc.open(cmd, fc.a.loadRepo, check, run)
}

// subscriptionFlags are the settings feeds add and feeds import take.
type subscriptionFlags struct {
	weight        float64
	every, within time.Duration
}

func (sf *subscriptionFlags) register(c *cobra.Command) {
	c.Flags().Float64Var(&sf.weight, "weight", 1, "importance w_i of the feed, > 0")
	c.Flags().DurationVar(&sf.every, "min-interval", 0, "poll at most this often, ≥ feeds.step (default feeds.min_interval)")
	c.Flags().DurationVar(&sf.within, "max-interval", 0, "poll at least this often (default feeds.max_interval)")
}

// options are the settings cmd was given: nil for a flag not given.
func (sf subscriptionFlags) options(cmd *cobra.Command) feeds.AddOptions {
	var o feeds.AddOptions
	if cmd.Flags().Changed("weight") {
		o.Weight = &sf.weight
	}
	if cmd.Flags().Changed("min-interval") {
		o.MinInterval = &sf.every
	}
	if cmd.Flags().Changed("max-interval") {
		o.MaxInterval = &sf.within
	}
	return o
}

// addCmd is feeds add.
func (fc *feedsCommands) addCmd() *cobra.Command {
	a := fc.a
	var (
		sf           subscriptionFlags
		name, folder string
	)
	add := &cobra.Command{
		Use:   "add URL [--weight W] [--min-interval D] [--max-interval D] [--name NAME] [--folder A/B]",
		Short: "Subscribe to a feed (again: change the settings given, keep the others and its state)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := sf.options(cmd)
			opts.Name, opts.SetName = name, cmd.Flags().Changed("name")
			// "" and "/" file it in no folder; "A//B" names an empty
			// one, which the store refuses.
			if opts.SetFolders = cmd.Flags().Changed("folder"); strings.Trim(folder, "/") != "" {
				opts.Folders = strings.Split(strings.Trim(folder, "/"), "/")
			}
			// A flag no feed can take makes no data directory.
			check := func(cfg *configs.Config) error { return asFlagError(cfg.Feeds.CheckOptions(opts)) }
			return fc.subscribing(cmd, check, func(ctx context.Context, _ *configs.Config, _ *repo.DB, st *feeds.Store) error {
				f, _, err := st.Subscribe(ctx, args[0], opts, time.Now())
				if err != nil {
					return asFlagError(err)
				}
				fmt.Fprintf(a.stdout, "%s %s (weight %g, every %s to %s; %d postings known)", f.ID, f.URL, f.Weight, f.MinInterval, f.MaxInterval, f.Postings)
				if f.Name != "" || len(f.Folders) > 0 {
					fmt.Fprintf(a.stdout, " %q in %q", f.Name, "/"+strings.Join(f.Folders, "/"))
				}
				fmt.Fprintln(a.stdout)
				return nil
			})
		},
	}
	add.Flags().StringVar(&name, "name", "", "your name for the feed (again: renames it)")
	add.Flags().StringVar(&folder, "folder", "", "the folder to file it in, as A/B for B inside A (again: refiles it; \"\" for none)")
	sf.register(add)
	return add
}

// importCmd is feeds import.
func (fc *feedsCommands) importCmd() *cobra.Command {
	a := fc.a
	var sf subscriptionFlags
	imp := &cobra.Command{
		Use:   "import FILE.opml [--weight W] [--min-interval D] [--max-interval D]",
		Short: "Subscribe to every feed of an OPML list, with the settings its deltaq: attributes give (feeds export writes them)",
		Long: `Subscribe to every feed of an OPML list. A feed's weight and poll intervals
come from, first, the flags given here (they override the list); then the
outline's deltaq:weight, deltaq:minInterval and deltaq:maxInterval
attributes (namespace ` + feeds.OPMLNamespace + `, as feeds export writes them);
then, for a feed already subscribed, its own settings, else the defaults.
A new subscription keeps the outline's text as its name (a deltaq:name
attribute, which feeds export writes, overrides it; deltaq:name="" leaves
the feed unnamed) and the outlines around it as its folders (feeds export
writes them back); one already subscribed keeps its own.
It counts the feeds newly subscribed, those already subscribed, the
outlines that repeat a feed of the file, and lists those skipped, with
why; any skipped outline makes the exit status non-zero.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			flags := sf.options(cmd)
			// Read before the data directory is made: a file that is
			// not there, or not OPML, leaves none made for it; a flag
			// no feed can take is refused once, before the file is read.
			var outlines []feeds.Outline
			read := func(cfg *configs.Config) error {
				// Worded as feeds add refuses it.
				if err := cfg.Feeds.CheckOptions(flags); err != nil {
					return asFlagError(err)
				}
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				if outlines, err = feeds.ReadOPML(f); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				return nil
			}
			return fc.subscribing(cmd, read, func(ctx context.Context, _ *configs.Config, _ *repo.DB, st *feeds.Store) error {
				return a.importOPML(ctx, st, outlines, flags)
			})
		},
	}
	sf.register(imp)
	return imp
}

// exportCmd is feeds export.
func (fc *feedsCommands) exportCmd() *cobra.Command {
	a := fc.a
	export := &cobra.Command{
		Use:   "export",
		Short: "Write the subscriptions as OPML to standard output",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fc.with(cmd, func(ctx context.Context, _ *configs.Config, _ *repo.DB, st *feeds.Store) error {
				list, err := st.Subscriptions(ctx)
				if err != nil {
					return err
				}
				return feeds.WriteOPML(a.stdout, list)
			})
		},
	}
	return export
}

// listCmd is feeds list.
func (fc *feedsCommands) listCmd() *cobra.Command {
	a := fc.a
	list := &cobra.Command{
		Use:   "list",
		Short: "List the subscriptions with their last poll",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fc.with(cmd, func(ctx context.Context, _ *configs.Config, _ *repo.DB, st *feeds.Store) error {
				list, err := st.Subscriptions(ctx)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tURL\tWEIGHT\tPOLLS\t304\tPOSTINGS\tLAST POLL\tLAST ERROR\tLAST CUTS\tMOVED FROM\tNAME\tFOLDER")
				for _, f := range list {
					last := "never"
					if !f.LastFetch.IsZero() {
						last = f.LastFetch.UTC().Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%g\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", f.ID, f.URL, f.Weight, f.Fetches, f.NotModified, f.Postings, last, f.LastError, f.LastCuts, f.MovedFrom,
						f.Name, strings.Join(f.Folders, "/"))
				}
				return tw.Flush()
			})
		},
	}
	return list
}

// rmCmd is feeds rm.
func (fc *feedsCommands) rmCmd() *cobra.Command {
	a := fc.a
	rm := &cobra.Command{
		Use:   "rm URL|ID",
		Short: "Unsubscribe from a feed: its state and items go",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return fc.with(cmd, func(ctx context.Context, _ *configs.Config, _ *repo.DB, st *feeds.Store) error {
				id, err := feedID(st, args[0])
				if err != nil {
					return err
				}
				f, items, err := st.Remove(ctx, id)
				if errors.Is(err, feeds.ErrUnknownFeed) {
					return fmt.Errorf("%w: %s (deltaq feeds list shows the subscriptions)", feeds.ErrUnknownFeed, args[0])
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "unsubscribed %s %s (%d items removed)\n", f.ID, f.URL, items)
				return nil
			})
		},
	}
	return rm
}

// explainCmd is feeds explain.
func (fc *feedsCommands) explainCmd() *cobra.Command {
	a := fc.a
	explain := &cobra.Command{
		Use:   "explain URL|ID",
		Short: "A feed's learned rate and profile, its posting history, its polls per week, the next planned polls and recent delays",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return fc.with(cmd, func(ctx context.Context, cfg *configs.Config, _ *repo.DB, st *feeds.Store) error {
				id, err := feedID(st, args[0])
				if err != nil {
					return err
				}
				list, err := st.Subscriptions(ctx)
				if err != nil {
					return err
				}
				i := slices.IndexFunc(list, func(f feeds.Feed) bool { return f.ID == id })
				if i < 0 {
					return fmt.Errorf("%w: %s (deltaq feeds list shows the subscriptions; add it with deltaq feeds add)", feeds.ErrUnknownFeed, args[0])
				}
				if err := st.WithLists(list[i : i+1]); err != nil { // its posting history, explained below
					return err
				}
				// The running poller's plan when it is current (made within
				// monitor.replan); else the plan a poller starting now makes.
				now := time.Now()
				p, made, ok, err := st.SavedPlan(list[i])
				if err != nil {
					return err
				}
				source := "the poller's plan of " + made.UTC().Format(time.DateTime) + " UTC"
				if !ok || now.Sub(made) >= cfg.Monitor.Replan {
					if err := st.WithLists(list); err != nil { // the histories planning reads
						return err
					}
					plans, err := feeds.PlanAll(cfg.Feeds, list, now, feedPlanSeed)
					if err != nil {
						return err
					}
					p, source = plans[i], "planned now: no poller plan made within monitor.replan"
				}
				p.Next = slices.DeleteFunc(p.Next, func(t time.Time) bool { return t.Before(now) })
				a.explainFeed(p, cfg.Feeds, source)
				return nil
			})
		},
	}
	return explain
}

// pollCmd is feeds poll.
func (fc *feedsCommands) pollCmd() *cobra.Command {
	a := fc.a
	poll := &cobra.Command{
		Use:   "poll [--resolve HOST=ADDR] [--allow-private] [--politeness-overrides YAML]",
		Short: "Poll every subscribed feed once through the crawler (robots, politeness, conditional GET) and record what is new",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fc.with(cmd, func(ctx context.Context, cfg *configs.Config, db *repo.DB, st *feeds.Store) error {
				return a.pollFeeds(ctx, cfg, db, st)
			})
		},
	}
	addFetchFlags(poll)
	return poll
}

// discoverCmd is feeds discover.
func (fc *feedsCommands) discoverCmd() *cobra.Command {
	a := fc.a
	var addFound bool
	var limit int
	discover := &cobra.Command{
		Use:   "discover [--add] [--limit N]",
		Short: "Feeds the crawled pages advertise (<link rel=alternate>) that are not subscribed; --add subscribes them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fc.with(cmd, func(ctx context.Context, _ *configs.Config, _ *repo.DB, st *feeds.Store) error {
				if limit < 1 {
					return fmt.Errorf("--limit = %d: must be ≥ 1", limit)
				}
				offers, err := st.Discover(ctx, limit)
				if err != nil {
					return err
				}
				for _, o := range offers {
					fmt.Fprintf(a.stdout, "%s	(on %d pages, first %s)\n", o.URL, o.Pages, o.FoundOn)
					if addFound {
						if _, _, err := st.Subscribe(ctx, o.URL, feeds.AddOptions{}, time.Now()); err != nil {
							return err
						}
					}
				}
				verb := "offered"
				if addFound {
					verb = "subscribed"
				}
				fmt.Fprintf(a.stdout, "%d feeds %s\n", len(offers), verb)
				return nil
			})
		},
	}
	discover.Flags().BoolVar(&addFound, "add", false, "subscribe to the feeds found")
	discover.Flags().IntVar(&limit, "limit", 100, "feeds listed at most")
	return discover
}

func (a *app) explainFeed(p feeds.Planned, cfg feeds.Config, source string) {
	f, m := p.Feed, p.Model
	fmt.Fprintf(a.stdout, "%s  %s\n", f.URL, f.Title)
	if f.MovedFrom != "" {
		fmt.Fprintf(a.stdout, "moved from %s on %s (a permanent redirect followed)\n", f.MovedFrom, f.Moved.UTC().Format(time.RFC3339))
	}
	if c := f.LastCuts.String(); c != "" {
		fmt.Fprintf(a.stdout, "last read cut: %s\n", c)
	}
	if f.Awaits != "" {
		fmt.Fprintf(a.stdout, "awaits %s, where its URL redirects for now: read once the crawler fetched it\n", f.Awaits)
	}
	fmt.Fprintf(a.stdout, "rate λ̄: %.2f postings a day, profile learned from %d postings in the window of feeds.profile_windows that predicted the last %d weeks best (daily pattern: cluster %d)\n",
		m.Rate*86400, m.Postings, cfg.ProfileHoldoutWeeks, m.Cluster)
	if len(f.History) == 0 {
		fmt.Fprintln(a.stdout, "posting history: none yet")
	} else {
		// The newest posting's time shows when a low rate comes from old postings.
		fmt.Fprintf(a.stdout, "posting history: %d postings kept (feeds.history_kept), the newest at %s\n",
			len(f.History), slices.MaxFunc(f.History, time.Time.Compare).UTC().Format(time.RFC3339))
	}
	var day [24]float64
	for b, v := range m.Shape {
		day[b%24] += v / 7
	}
	fmt.Fprint(a.stdout, "profile λ(t)/λ̄ by UTC hour: ")
	for h, v := range day {
		fmt.Fprintf(a.stdout, "%02d:%.1f ", h, v)
	}
	fmt.Fprintln(a.stdout)
	fmt.Fprintf(a.stdout, "polls: %d a week (square-root rule, %g a feed a day on average, bounds every %s to %s)\n",
		p.PollsPerWeek, cfg.PollsPerDay, f.MinInterval, f.MaxInterval)
	var next []string
	for _, t := range p.Next[:min(len(p.Next), 8)] {
		next = append(next, t.UTC().Format("Mon 15:04"))
	}
	fmt.Fprintf(a.stdout, "next planned polls (UTC; %s): %s\n", source, strings.Join(next, ", "))
	if len(f.Delays) == 0 {
		fmt.Fprintln(a.stdout, "recent delays: none observed yet")
		return
	}
	d := slices.Clone(f.Delays)
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	fmt.Fprintf(a.stdout, "recent delays (%d postings): mean %s, median %s, max %s\n", len(d),
		(sum / time.Duration(len(d))).Round(time.Second), d[len(d)/2].Round(time.Second), d[len(d)-1].Round(time.Second))
}

// pollFeeds queues every feed in the crawler's frontier, unless it is
// queued already (by a poll that ended before fetching it, or for a
// re-fetch planned later: it is fetched now all the same), crawls the
// feeds until none is left that can be fetched within drainHorizon, and
// takes each stored result into the feed store. The frontier holds the
// feeds alone: what the poll finds (the feeds' items, the hosts' sitemaps)
// and what was queued before stays queued for a crawl, since a poll of a
// blog's feed is not a crawl of the blog. It prints the crawl's summary,
// which says why a feed was not fetched, and names the feeds whose fetch
// failed.
func (a *app) pollFeeds(ctx context.Context, cfg *configs.Config, db *repo.DB, st *feeds.Store) error {
	list, err := st.Subscriptions(ctx)
	if err != nil {
		return err
	}
	urls, subscribed, err := pollURLs(db, list)
	if err != nil {
		return err
	}
	// What the poll fetches, the feeds and their redirects' targets, is
	// fetched as a feed reader does: served as text/plain or
	// application/octet-stream, or with any type if the body looks like
	// XML, it is read, and the feed parser says whether it is a feed.
	only := fromFeed(db, subscribed, cfg.Crawler.Limits.MaxRedirects)
	cr, err := newCrawlWith(ctx, db, cfg, a.logger(cfg), nil, nil, crawlParts{only: only, dueNow: true, feed: only})
	if err != nil {
		return err
	}
	if err := queueNow(ctx, db, cr, urls); err != nil {
		return err
	}
	sum, err := cr.c.Run(ctx, cr.f, crawler.RunOptions{Drain: true, DrainHorizon: drainHorizon, Progress: a.stderr, ProgressEvery: 10 * time.Second})
	fmt.Fprint(a.stdout, sum)
	if err != nil {
		return err
	}
	// Read what was fetched even after an interrupt: it is local.
	absorbed := a.absorbPolls(context.WithoutCancel(ctx), st, list)
	if ctx.Err() != nil {
		// As an interrupted crawl: the exit status must not say that
		// every feed was polled.
		return errors.Join(absorbed, fmt.Errorf("feeds poll interrupted; the feeds fetched are read and kept, the others stay queued: run it again to poll them: %w", context.Cause(ctx)))
	}
	return errors.Join(absorbed, refusedError(sum))
}

// pollURLs lists what a poll fetches: the feeds' URLs, and the target of
// each feed's last temporary redirect, since a feed that answered one is
// likely to again and feeds.Store.Absorb reads a target fetched since the
// feed's last poll. The crawler queues a target it has not seen itself,
// but not one it knows. subscribed holds them all.
func pollURLs(db *repo.DB, list []feeds.Feed) (urls []string, subscribed map[string]bool, err error) {
	subscribed = make(map[string]bool, len(list))
	urls = make([]string, 0, len(list))
	for _, f := range list {
		subscribed[f.URL] = true
		urls = append(urls, f.URL)
	}
	for _, f := range list {
		p, err := db.Page(f.URL)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, nil, err
		}
		if err == nil && p.LastOutcome == repo.OutcomeRedirect && p.RedirectTo != "" && p.HTTPStatus != 301 && p.HTTPStatus != 308 && !subscribed[p.RedirectTo] {
			subscribed[p.RedirectTo] = true
			urls = append(urls, p.RedirectTo)
		}
	}
	return urls, subscribed, nil
}

// fromFeed reports whether a URL is one of subscribed, or the target of a
// redirect from one (a chain of at most maxRedirects), which the crawler
// queues as a URL of its own: fetched in this poll, the feed reads it at
// once.
func fromFeed(db *repo.DB, subscribed map[string]bool, maxRedirects int) func(string) bool {
	return func(url string) bool {
		if subscribed[url] {
			return true
		}
		p, err := db.Page(url)
		for range maxRedirects {
			if err != nil || p.Hops == 0 || p.Source == "" {
				return false
			}
			src, err := db.Page(p.Source)
			if err != nil || src.RedirectTo != p.URL {
				return false
			}
			if subscribed[src.URL] {
				return true
			}
			p = src
		}
		return false
	}
}

// queueNow queues urls in cr's frontier to be fetched at once: a known
// page as a re-crawl, unless it is on its way already, and a new one as
// a seed.
func queueNow(ctx context.Context, db *repo.DB, cr *crawl, urls []string) error {
	var fresh []string
	b := db.NewBatch(ctx)
	defer b.Close()
	var queued []repo.QueueItem
	for _, u := range urls {
		p, err := db.Page(u)
		switch {
		case errors.Is(err, repo.ErrNotFound):
			fresh = append(fresh, u)
			continue
		case err != nil:
			return err
		case cr.f.RecordOnItsWay(&p):
			continue
		}
		it, err := cr.f.Enqueue(b, u, repo.ReasonRecrawl, time.Now())
		if err != nil {
			return err
		}
		queued = append(queued, it)
	}
	if err := b.Commit(); err != nil {
		return err
	}
	cr.f.Publish(queued...)
	_, err := cr.c.Seed(ctx, cr.f, fresh)
	return err
}

// absorbPolls takes each feed's stored result into st and prints what
// came of the poll. A feed whose fetch failed (an HTTP error, a timeout,
// a body too large or of the wrong type) and one whose body did not parse
// are alike to the user: not fetched, named with why, and the poll's exit
// is not 0. One the crawl did not get to stays queued and is not a
// failure: the crawl's summary says why.
func (a *app) absorbPolls(ctx context.Context, st *feeds.Store, list []feeds.Feed) error {
	var errs []error
	var failed []string
	var cut []string // fetched, and the read cut what the feed held (feeds.Cuts)
	var moved []string
	fetched, newItems := 0, 0
	for _, f := range list {
		up, ok, err := st.Absorb(ctx, f.ID)
		for _, m := range up.Moves {
			moved = append(moved, m.String())
		}
		var bodyErr *feeds.BodyError
		switch {
		case errors.As(err, &bodyErr):
			failed = append(failed, f.URL+": "+bodyErr.Err.Error())
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		case !ok:
			continue
		case up.Failed != "":
			failed = append(failed, f.URL+": "+up.Failed)
			continue
		}
		fetched++
		newItems += len(up.New)
		if c := up.Cuts.String(); c != "" {
			cut = append(cut, f.URL+": "+c)
		}
	}
	fmt.Fprintf(a.stdout, "%d of %d feeds fetched, %d new items, %d failed\n", fetched, len(list), newItems, len(failed))
	for _, x := range failed {
		fmt.Fprintf(a.stdout, "  failed: %s\n", x)
	}
	for _, x := range cut {
		fmt.Fprintf(a.stdout, "  cut: %s\n", x)
	}
	for _, x := range moved {
		fmt.Fprintf(a.stdout, "  moved: %s; polled there from now on\n", x)
	}
	if len(failed) > 0 {
		errs = append(errs, fmt.Errorf("feeds poll: %d of %d feeds failed (named above)", len(failed), len(list)))
	}
	return errors.Join(errs...)
}

// importOPML subscribes to the outlines' feeds, each with its own
// settings unless flags give them, and says what came of each: new,
// already subscribed, a repeat of a feed earlier in the file (the same
// URL once normalized: an upper-case host is the same host), or skipped
// with why. The feeds are subscribed in one call (SubscribeMany), which
// writes them in batches: should it fail part-way, the feeds it stored
// are found already subscribed by the import run again.
func (a *app) importOPML(ctx context.Context, st *feeds.Store, outlines []feeds.Outline, flags feeds.AddOptions) error {
	// Each outline's skip reason, or its subscription's index in subs
	// (repeat for a repeat of a feed earlier in the file).
	const repeat = -1
	why := make([]string, len(outlines))
	sub := make([]int, len(outlines))
	var subs []feeds.Subscription
	seen := make(map[string]bool, len(outlines))
	for i, o := range outlines {
		// As Subscribe reads the URL, so that a URL it refuses is no
		// repeat of, and no first for, the one it would be taken for.
		u, err := urlnorm.NormalizeGiven(o.URL)
		switch {
		case o.Skip != "":
			why[i] = o.Skip
		case errors.Is(err, urlnorm.ErrControl):
			why[i] = "must be a URL with " + urlnorm.GivenRule
		case err == nil && seen[u]:
			sub[i] = repeat
		default:
			// A URL NormalizeGiven refuses (too long, not http) goes on,
			// matched with none, for SubscribeMany to refuse with the
			// reason feeds add gives.
			seen[u] = err == nil
			opts := o.Options
			opts.Weight = cmp.Or(flags.Weight, opts.Weight)
			opts.MinInterval = cmp.Or(flags.MinInterval, opts.MinInterval)
			opts.MaxInterval = cmp.Or(flags.MaxInterval, opts.MaxInterval)
			opts.Name, opts.Folders = o.Name, o.Folders // a new subscription's only
			sub[i] = len(subs)
			subs = append(subs, feeds.Subscription{URL: o.URL, Options: opts})
		}
	}
	done, err := st.SubscribeMany(ctx, subs, time.Now())
	if err != nil {
		return err
	}
	var skipped []string
	fresh, already, repeats := 0, 0, 0
	for i, o := range outlines {
		var se *feeds.SettingError
		switch {
		case why[i] != "":
		case sub[i] == repeat:
			repeats++
		case errors.As(done[sub[i]].Err, &se):
			why[i] = "must be " + se.Limit
			if se.Setting != "url" {
				why[i] = fmt.Sprintf("%s = %q: %s", se.Setting, se.Value, why[i])
			}
		case done[sub[i]].New:
			fresh++
		default:
			already++
		}
		if why[i] != "" {
			what := cmp.Or(o.URL, o.Title)
			skipped = append(skipped, fmt.Sprintf("line %d %s: %s", o.Line, urlnorm.Quote(what), why[i]))
		}
	}
	fmt.Fprintf(a.stdout, "%d feeds subscribed, %d already subscribed, %d repeated in the file, %d skipped\n", fresh, already, repeats, len(skipped))
	for _, x := range skipped {
		fmt.Fprintf(a.stdout, "  skipped: %s\n", x)
	}
	if len(skipped) > 0 {
		return fmt.Errorf("feeds import: %d outlines skipped (listed above)", len(skipped))
	}
	return nil
}

// feedIDPattern matches a feed's id (feeds.IDOf).
var feedIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// asFlagError names a setting the feed store refuses as the flag of feeds
// add that gives it: folders (their count) and folders[i] as --folder,
// level i+1. A value is repeated cut to its first 200 characters.
func asFlagError(err error) error {
	var se *feeds.SettingError
	if !errors.As(err, &se) {
		return err
	}
	value := excerpt.Quoted(se.Value, 200)
	if se.Setting == "url" {
		return fmt.Errorf("URL %s: must be %s", value, se.Limit)
	}
	if rest, ok := strings.CutPrefix(se.Setting, "folders"); ok {
		if rest == "" {
			return fmt.Errorf("--folder: %s: must be %s", se.Value, se.Limit)
		}
		i, _ := strconv.Atoi(strings.Trim(rest, "[]"))
		return fmt.Errorf("--folder: level %d = %s: must be %s", i+1, value, se.Limit)
	}
	limit := strings.ReplaceAll(se.Limit, "max_interval", "--max-interval")
	return fmt.Errorf("--%s = %s: must be %s", strings.ReplaceAll(se.Setting, "_", "-"), value, limit)
}

// feedID is the id of the feed arg names, by URL or by id (as deltaq
// feeds list shows it): what rm and explain take. A URL is the feed's
// now, or the one a redirect moved it from (feeds.Store.Lookup). Whether
// it is subscribed is the store's to say.
func feedID(st *feeds.Store, arg string) (string, error) {
	if feedIDPattern.MatchString(arg) {
		return arg, nil
	}
	u, err := urlnorm.NormalizeGiven(arg)
	if err != nil { // urlnorm's reason would be about URLs alone
		return "", fmt.Errorf("%s: not a feed URL or ID of this repository (a feed's http or https URL, or its 16-digit ID as deltaq feeds list shows it)", urlnorm.Quote(arg))
	}
	id, err := st.Lookup(u)
	if errors.Is(err, feeds.ErrUnknownFeed) {
		return feeds.IDOf(u), nil
	}
	return id, err
}

// openFeedStore opens the feed store as every command that polls feeds
// uses it: with cfg.Feeds, and following as many permanent redirects in a
// row as the crawler does (crawler.limits.max_redirects).
func openFeedStore(ctx context.Context, db *repo.DB, cfg *configs.Config) (*feeds.Store, error) {
	st, err := feeds.NewStore(ctx, db, cfg.Feeds)
	if err != nil {
		return nil, err
	}
	st.LimitRedirects(cfg.Crawler.Limits.MaxRedirects)
	return st, nil
}
