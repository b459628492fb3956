package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

func (a *app) newHostsCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "hosts --data DIR",
		Short: "Per-host statistics: pages by state, last outcomes, queue, robots.txt and back-off",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, db, _, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			hosts, err := crawler.Hosts(cmd.Context(), db)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "HOST\tPAGES\tLIVE\tQUEUED\tFETCHES\tNOT OK (LAST FETCH)\tROBOTS.TXT\tBACKING OFF UNTIL\tLAST FETCH")
			now := time.Now()
			for _, h := range hosts {
				robots := "not fetched"
				if !h.RobotsFetched.IsZero() {
					robots = "unreachable"
					if h.RobotsStatus != 0 {
						robots = fmt.Sprint(h.RobotsStatus)
					}
				}
				if stale := h.StaleRobots(); stale != "" {
					robots += " (" + stale + ")"
				}
				backoff := backingOff(h, now)
				last := "-"
				if !h.LastFetch.IsZero() {
					last = h.LastFetch.Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", h.Host, h.Pages, h.ByState[repo.StateLive.String()],
					h.Queued, h.Fetches, notOK(h.ByOutcome), robots, backoff, last)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, countOf(len(hosts), "host", "hosts"))
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	return cmd
}

// backingOff is when the crawl may fetch from h again, or "-": the later
// of a page's 429/503 back-off and the deferral a 5xx or unreachable
// robots.txt brings (crawler.robots.error_defer), marked as such since
// nothing else in the row says why an hour goes by without a fetch.
func backingOff(h crawler.HostStats, now time.Time) string {
	switch {
	case h.RobotsDeferredUntil.After(now) && !h.BackoffUntil.After(h.RobotsDeferredUntil):
		return h.RobotsDeferredUntil.Format(time.DateTime) + " (robots.txt)"
	case h.BackoffUntil.After(now):
		return h.BackoffUntil.Format(time.DateTime)
	}
	return "-"
}

// notOK lists the outcomes other than ok and not_modified, e.g.
// "gone 2, timeout 1", or "-".
func notOK(byOutcome map[string]int) string {
	var parts []string
	for o, n := range byOutcome {
		if o != repo.OutcomeOK.String() && o != repo.OutcomeNotModified.String() {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func (a *app) newQueueCmd() *cobra.Command {
	var (
		dataDir, host string
		limit         int
	)
	cmd := &cobra.Command{
		Use:   "queue --data DIR [--host HOST] [--limit N]",
		Short: "List queued URLs in due order: when, which budget class, why queued",
		Long: `List queued URLs in due order: when, which budget class, why queued.
A URL whose host is held back past the URL's due time (its robots.txt
failed, or it answered 429 or 503) shows when the host may be asked again,
and why: "(host: robots.txt)" or "(host: back-off)".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, db, _, err := a.loadCrawledRepo(cmd, dataDir, func(*configs.Config) error {
				if limit < 1 {
					return fmt.Errorf("--limit = %d: must be >= 1", limit)
				}
				if host == "" && cmd.Flags().Changed("host") {
					return errors.New("--host: empty")
				}
				return checkHostFlag(host)
			})
			if err != nil {
				return err
			}
			defer db.Close()
			ctx := cmd.Context()
			var items []repo.QueueItem
			total := 0
			if host != "" {
				known, err := crawler.HostKnown(ctx, db, host)
				if err != nil {
					return err
				}
				if !known { // refused as rm --host refuses it: a script must not read it as an empty queue
					return unknownHost(ctx, db, host)
				}
				for class := range repo.NumClasses {
					for it, err := range db.Queue(ctx, host, repo.QueueClass(class), 0) {
						if err != nil {
							return err
						}
						items = append(items, it)
					}
				}
				total = len(items)
			} else {
				for it, err := range db.AllQueued(ctx) {
					if err != nil {
						return err
					}
					total++
					items = append(items, it)
					if len(items) >= 2*limit { // keep memory to the earliest due
						items = earliest(items, limit)
					}
				}
			}
			items = earliest(items, limit)
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DUE\tCLASS\tREASON\tURL")
			waits := map[string]hostWait{}
			for _, it := range items {
				// A URL due before its host may be asked again waits for
				// the host: show when, and why, as deltaq hosts does.
				h := urlnorm.Host(it.URL)
				w, ok := waits[h]
				if !ok {
					st, err := db.Host(h)
					if err != nil && !errors.Is(err, repo.ErrNotFound) {
						return err
					}
					w.until, w.why = crawler.HostWait(st)
					waits[h] = w
				}
				due := it.Due.Format(time.DateTime)
				if w.until.After(it.Due) {
					due = w.until.Format(time.DateTime) + " (host: " + w.why + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", due, it.Reason.Class(), it.Reason, it.URL)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d of %d queued URLs shown\n", min(limit, total), total)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	cmd.Flags().StringVar(&host, "host", "", "only this host (host[:port] as in the URLs)")
	cmd.Flags().IntVar(&limit, "limit", 50, "URLs listed at most")
	return cmd
}

// hostWait is until when a host holds its URLs back, and why.
type hostWait struct {
	until time.Time
	why   string
}

// earliest keeps the n items due first, in due order: the order the
// frontier hands them out in when no politeness or budget holds them.
func earliest(items []repo.QueueItem, n int) []repo.QueueItem {
	slices.SortStableFunc(items, func(x, y repo.QueueItem) int { return x.Due.Compare(y.Due) })
	return items[:min(n, len(items))]
}

func (a *app) newRmCmd() *cobra.Command {
	var dataDir, host string
	cmd := &cobra.Command{
		Use:   "rm --data DIR (URL... | --host HOST)",
		Short: "Remove pages, or a whole host, from the repository and the index",
		Long: `rm deletes each page (its record, versions, fetch log, out-links and
statistics) and its queue entries, or with --host every page of the host
and the host's record, then brings the index up to date so the pages no
longer show in search. Pages that link to a removed URL keep their links,
so a later crawl may find it again: keep it out with crawler.exclude.
An index rm cannot open or bring up to date fails rm before anything is
removed. The crawl and the server must be stopped (they hold the
repository).

Each URL is looked up as the crawler normalizes URLs, so a fragment or an
upper-case host does not matter. A URL the repository does not hold is
named on stderr with the near URLs it does hold (the other scheme, with or
without a trailing slash): suggested, never removed in its place. The
pages of the URLs held are removed all the same, and rm then exits
nonzero, so a script notices a mistyped URL; if no URL given is held, rm
removes nothing.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			switch {
			case host == "" && cmd.Flags().Changed("host"):
				return errors.New("--host: empty")
			case host == "" && len(args) == 0:
				return errors.New("nothing to remove: give the URLs of pages or --host HOST")
			case host != "" && len(args) > 0:
				return errors.New("give URLs to remove or --host HOST, not both")
			}
			if err := checkHostFlag(host); err != nil {
				return err
			}
			urls, given, err := normalizeGivenURLs(args)
			if err != nil {
				return err
			}
			return a.rm(cmd.Context(), cfg, dataDir, host, urls, given)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	cmd.Flags().StringVar(&host, "host", "", "remove every page of this host (host[:port] as in the URLs)")
	return cmd
}

// normalizeGivenURLs normalizes the URLs given to rm as the crawler does;
// given maps each to the first form it was given in, for messages, and a
// URL given twice is removed once.
func normalizeGivenURLs(args []string) (urls []string, given map[string]string, err error) {
	given = map[string]string{}
	for _, raw := range args {
		u, err := urlnorm.NormalizeGiven(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("URL %s: %w", urlnorm.Quote(raw), err)
		}
		if _, dup := given[u]; !dup {
			given[u] = raw
			urls = append(urls, u)
		}
	}
	return urls, given, nil
}

// rm removes the pages urls, or with host every page of the host, from
// the repository under dataDir and brings its index up to date; see
// deltaq rm's help.
func (a *app) rm(ctx context.Context, cfg *configs.Config, dataDir, host string, urls []string, given map[string]string) error {
	logger := a.logger(cfg)
	db, err := openCrawledRepo(dataDir, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	var missing []string
	if host == "" {
		if urls, missing, err = a.held(db, urls, given); err != nil {
			return err
		}
	}
	// The index is opened and brought up to date before anything is
	// removed: an index rm cannot update must not fail it after the
	// repository has changed.
	var ix *index.Index
	var before uint64
	if _, err := os.Stat(indexPath(dataDir)); !errors.Is(err, fs.ErrNotExist) {
		if ix, err = openIndex(dataDir, cfg, db, index.Options{Logger: logger}); err != nil {
			return err
		}
		defer ix.Close()
		if before, err = countUpToDate(ctx, ix); err != nil {
			return err
		}
	}
	var r crawler.Removed
	if host != "" {
		var known bool
		if known, err = crawler.HostKnown(ctx, db, host); err == nil && !known {
			return unknownHost(ctx, db, host)
		}
		if err == nil {
			r, err = crawler.RemoveHost(ctx, db, host, time.Now())
		}
	} else {
		r, err = crawler.RemovePages(ctx, db, urls, time.Now())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "removed %s and %s\n", countOf(r.Pages, "page", "pages"), countOf(r.Queued, "queue entry", "queue entries"))
	// The index is brought up to date before a URL not held fails rm: the
	// pages removed must leave search either way.
	if ix != nil {
		// Counted, not taken from the deletes applied: a page never
		// fetched, or not indexable, has a delete but no document.
		after, err := countUpToDate(ctx, ix)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "index updated: %s removed, %d left\n", countOf(int64(before)-int64(after), "document", "documents"), after)
		if err := ix.Close(); err != nil {
			return err
		}
	} // else no index yet: the first one is built without them
	if len(missing) > 0 {
		other := fmt.Sprintf("the other %d were removed", len(urls))
		if len(urls) == 1 {
			other = "the other was removed"
		}
		return fmt.Errorf("not in the repository: %d of the %d URLs given (named above); %s",
			len(missing), len(missing)+len(urls), other)
	}
	return nil
}

// held splits urls into those db holds and those it does not, naming each
// of the latter on stderr with the near URLs it holds. They are found
// before anything is removed, so a list that holds none of them changes
// nothing: that is an error.
func (a *app) held(db *repo.DB, urls []string, given map[string]string) (held, missing []string, err error) {
	if held, missing, err = splitHeld(db, urls); err != nil {
		return nil, nil, err
	}
	for _, u := range missing {
		line, err := notHeld(db, given[u], u)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(a.stderr, "rm: %s\n", line)
	}
	switch {
	case len(held) == 0 && len(missing) == 1:
		return nil, nil, errors.New("nothing removed: the URL given is not in the repository")
	case len(held) == 0:
		return nil, nil, fmt.Errorf("nothing removed: none of the %d URLs given is in the repository", len(missing))
	}
	return held, missing, nil
}

// countOf says n with the noun's singular or plural, as a summary line
// reads: "1 page", "0 pages", "2 pages".
func countOf[N int | int64 | uint64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// splitHeld splits normalized URLs into those the repository holds a page
// of and those it does not, keeping their order.
func splitHeld(db *repo.DB, urls []string) (held, missing []string, err error) {
	for _, u := range urls {
		switch _, err := db.Page(u); {
		case err == nil:
			held = append(held, u)
		case errors.Is(err, repo.ErrNotFound):
			missing = append(missing, u)
		default:
			return nil, nil, err
		}
	}
	return held, missing, nil
}

// notHeld says that u, given as raw, is not in the repository, and names
// the near URLs it does hold: a user who mistyped a URL learns which one
// to give. They are only named; rm never removes one in u's place.
func notHeld(db *repo.DB, raw, u string) (string, error) {
	msg := u + ": not in the repository"
	if raw != u { // quoted: what was given may hold spaces or control characters
		msg = fmt.Sprintf("%s (as normalized, %s): not in the repository", urlnorm.Quote(raw), u)
	}
	var held []string
	for _, v := range nearURLs(u) {
		switch _, err := db.Page(v); {
		case err == nil:
			held = append(held, v)
		case !errors.Is(err, repo.ErrNotFound):
			return "", err
		}
	}
	if len(held) > 0 {
		msg += "; did you mean " + strings.Join(held, " or ") + "?"
	}
	return msg, nil
}

// nearURLs returns the URLs a normalized u is most often mistaken for when
// typed or copied: the path with or without a trailing slash, the other
// scheme, and both; each normalized, none equal to u.
func nearURLs(u string) []string {
	scheme, rest, _ := strings.Cut(u, "://")
	other := "https"
	if scheme == "https" {
		other = "http"
	}
	i := strings.IndexByte(rest, '/') // a normalized URL always has a path
	if i < 0 {
		return nil
	}
	hostPort, path := rest[:i], rest[i:]
	path, query, hasQuery := strings.Cut(path, "?")
	paths := []string{path}
	switch {
	case path == "/": // the root has no form without the slash
	case strings.HasSuffix(path, "/"):
		paths = append(paths, strings.TrimSuffix(path, "/"))
	default:
		paths = append(paths, path+"/")
	}
	if hasQuery {
		query = "?" + query
	}
	var out []string
	for _, s := range []string{scheme, other} {
		for _, p := range paths {
			v, err := urlnorm.Normalize(s + "://" + hostPort + p + query)
			if err == nil && v != u && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// checkHostFlag checks a --host value (crawler.CheckHost); "" is no host.
func checkHostFlag(host string) error {
	if host == "" {
		return nil
	}
	if err := crawler.CheckHost(host); err != nil {
		return fmt.Errorf("--host %q: %w", host, err)
	}
	return nil
}

// countUpToDate applies the change feed ix has not yet applied and
// counts its documents.
func countUpToDate(ctx context.Context, ix *index.Index) (uint64, error) {
	if _, err := ix.CatchUp(ctx); err != nil {
		return 0, err
	}
	return ix.Count()
}

// unknownHost refuses --host naming a host the repository knows nothing
// of, naming the hosts it holds of the same name on other ports (or with
// a port, when host has none): 127.0.0.1 for 127.0.0.1:18081.
func unknownHost(ctx context.Context, db *repo.DB, host string) error {
	err := fmt.Errorf("--host %s: unknown: the repository has no page, queue entry or record of it", host)
	hosts, serr := crawler.Hosts(ctx, db)
	if serr != nil {
		return errors.Join(err, serr)
	}
	name := hostName(host)
	var near []string
	for _, h := range hosts {
		if hostName(h.Host) == name {
			near = append(near, h.Host)
		}
	}
	if len(near) > 0 {
		return fmt.Errorf("%w; did you mean %s?", err, strings.Join(near, " or "))
	}
	return err
}

// hostName is host[:port] without its port.
func hostName(host string) string {
	if name, _, err := net.SplitHostPort(host); err == nil {
		return name
	}
	return host
}
