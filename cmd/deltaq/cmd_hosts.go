package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
				backoff := "-"
				if h.BackoffUntil.After(now) {
					backoff = h.BackoffUntil.Format(time.DateTime)
				}
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
			fmt.Fprintf(a.stdout, "%d hosts\n", len(hosts))
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	return cmd
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
		Args:  cobra.NoArgs,
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
				if !known {
					fmt.Fprintf(a.stdout, "host %s is unknown: the repository has no page, queue entry or record of it\n", host)
					return nil
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
			for _, it := range items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.Due.Format(time.DateTime), it.Reason.Class(), it.Reason, it.URL)
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
repository).`,
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
			urls := make([]string, len(args))
			for i, raw := range args {
				if urls[i], err = urlnorm.Normalize(raw); err != nil {
					return fmt.Errorf("URL %q: %w", raw, err)
				}
			}
			logger := a.logger(cfg)
			db, err := openCrawledRepo(dataDir, cfg, logger)
			if err != nil {
				return err
			}
			defer db.Close()
			ctx := cmd.Context()
			// The index is opened and brought up to date before anything
			// is removed: an index rm cannot update must not fail it after
			// the repository has changed.
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
					return fmt.Errorf("--host %s: unknown: the repository has no page, queue entry or record of it", host)
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
			fmt.Fprintf(a.stdout, "removed %d pages and %d queue entries\n", r.Pages, r.Queued)
			if ix == nil {
				return nil // no index yet: the first one is built without them
			}
			// Counted, not taken from the deletes applied: a page never
			// fetched, or not indexable, has a delete but no document.
			after, err := countUpToDate(ctx, ix)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "index updated: %d documents removed, %d left\n", int64(before)-int64(after), after)
			return ix.Close()
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	cmd.Flags().StringVar(&host, "host", "", "remove every page of this host (host[:port] as in the URLs)")
	return cmd
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
