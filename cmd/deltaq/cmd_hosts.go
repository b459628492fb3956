package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/repo"
)

func (a *app) newHostsCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "hosts --data DIR",
		Short: "Per-host statistics: pages by state, last outcomes, queue, robots.txt and back-off",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			db, err := openRepo(dataDir, cfg, a.logger(cfg))
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
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if limit < 1 {
				return fmt.Errorf("--limit = %d: must be >= 1", limit)
			}
			if host == "" && cmd.Flags().Changed("host") {
				return errors.New("--host: empty")
			}
			db, err := openRepo(dataDir, cfg, a.logger(cfg))
			if err != nil {
				return err
			}
			defer db.Close()
			ctx := cmd.Context()
			var items []repo.QueueItem
			total := 0
			if host != "" {
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
