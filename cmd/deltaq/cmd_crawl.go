package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/plural"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

// drainHorizon is how long a one-pass crawl waits for work that is queued
// but not yet allowed to start (politeness, back-off). Hosts that must wait
// longer (a failing robots.txt defers a host for crawler.robots.error_defer)
// stay queued for the next run.
const drainHorizon = time.Minute

func (a *app) newCrawlCmd() *cobra.Command {
	var (
		dataDir  string
		seeds    []string
		maxPages int
		nodes    int
		server   string
	)
	cmd := &cobra.Command{
		Use:   "crawl (--data DIR | --server ADMIN_URL) --seeds URL... [--resolve HOST=ADDR] [--max-pages N] [--cluster nats://... --node NAME]",
		Short: "Crawl from seed URLs into the repository until nothing is left to fetch",
		Long: `Crawl fetches the seeds and what they link to (within crawler.scope), obeying
robots.txt and per-host politeness, and stores every fetch in the repository
under --data. It also polls the subscribed feeds and watched pages worth a
poll now (frontier.split.monitor). It stops when the queue is drained or
--max-pages pages were fetched, printing progress on stderr and a summary at
the end. Run it again without --seeds to resume where it stopped, with
--resolve, --allow-private and --politeness-overrides again if they were
given: the repository keeps the queue, not the flags.

With --cluster the crawl is one node of several sharing the hosts through
NATS JetStream (see deltaq cluster): give every node the same seeds; each
fetches the hosts of the shards it holds, hands the other links over, and
stops when the whole cluster has nothing left to fetch. A node does not
poll feeds or watches.

With --server, the seeds go to the crawl of a running deltaq run (or demo)
through its admin listener (server.admin.listen), which widens its scope
to their hosts and fetches them in turn; the flags of a crawl here
(--max-pages, --include, --resolve, ...) are refused with it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkSeedsGiven(cmd, seeds); err != nil {
				return err
			}
			if server != "" {
				for _, name := range localCrawlFlags {
					if cmd.Flags().Changed(name) {
						return fmt.Errorf("--%s with --server: it shapes a crawl in this process, and --server gives the seeds to the running crawl, whose configuration applies", name)
					}
				}
				return a.seedThrough(cmd.Context(), server, dataDir, seeds)
			}
			ctx := cmd.Context()
			var member *cluster.Member
			cfg, db, logger, err := a.loadRepo(cmd, dataDir, func(cfg *configs.Config) error {
				if maxPages < 0 {
					return fmt.Errorf("--max-pages = %d: must be >= 0", maxPages)
				}
				if nodes < 1 {
					return fmt.Errorf("--wait-nodes = %d: must be >= 1", nodes)
				}
				// Before the data directory is made: a bad seed leaves none.
				if _, err := crawler.NormalizeSeeds(seeds); err != nil {
					return err
				}
				if cfg.Cluster.URL == "" {
					return nil
				}
				if dataDir == "" {
					return errNoData
				}
				// Joined before the data directory is made: a cluster
				// this node cannot reach leaves none.
				var err error
				member, err = joinCluster(ctx, cfg, a.logger(cfg))
				return err
			})
			if err != nil {
				if member != nil {
					member.Close()
				}
				return err
			}
			defer db.Close()
			if member != nil {
				defer member.Close()
				return a.crawlNode(ctx, cmd, member, db, cfg, logger, seeds, maxPages, nodes)
			}
			return a.crawlLocal(ctx, cmd, db, cfg, logger, seeds, maxPages)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository and index)")
	cmd.Flags().StringSliceVar(&seeds, "seeds", nil, "start URLs (comma-separated or repeated)")
	cmd.Flags().IntVar(&maxPages, "max-pages", 0, "stop after this many page fetches (0 = no limit)")
	cmd.Flags().StringVar(&server, "server", "", "give the seeds to the crawl of a running deltaq run, at its admin listener, e.g. http://127.0.0.1:8081")
	cmd.Flags().String("cluster", "", "NATS servers of a crawl cluster, nats://host:4222,...; this node crawls its shards of the hosts (cluster.url)")
	cmd.Flags().String("node", "", "this node's name in the cluster (cluster.node)")
	cmd.Flags().IntVar(&nodes, "wait-nodes", 1, "with --cluster: wait until this many nodes share the shards before crawling (or join a crawl other nodes have begun)")
	cmd.Flags().StringArray("include", nil, "admit only URLs matching one of these regular expressions (crawler.include)")
	cmd.Flags().StringArray("exclude", nil, "never admit URLs matching this regular expression; repeatable (crawler.exclude)")
	addFetchFlags(cmd)
	bind(cmd.Flags(), map[string]string{
		"include": "crawler.include",
		"exclude": "crawler.exclude",
		"cluster": "cluster.url",
		"node":    "cluster.node",
	})
	return cmd
}

// crawlLocal crawls in this process alone: the seeds, what the queue
// holds, and the feeds and watches worth a poll now, whose results it
// reads at the end.
func (a *app) crawlLocal(ctx context.Context, cmd *cobra.Command, db *repo.DB, cfg *configs.Config, logger *slog.Logger, seeds []string, maxPages int) error {
	engine, err := openWatches(db, cfg, notify.NewOutbox(db, cfg.Notify), logger)
	if err != nil {
		return err
	}
	defer engine.Close()
	st, err := openFeedStore(ctx, db, cfg)
	if err != nil {
		return err
	}
	cr, err := newMonitoredCrawl(ctx, db, cfg, logger, nil, nil, st, engine, nil)
	if err != nil {
		return err
	}
	polls, err := cr.f.PlanMonitor(ctx) // the feeds and watches worth a poll now
	if err != nil {
		return err
	}
	if len(seeds) > 0 {
		n, err := cr.c.Seed(ctx, cr.f, seeds)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "crawl: %d of %d seeds new\n", n, len(seeds))
	} else if cr.f.Drained(drainHorizon) {
		return errors.New("nothing to crawl: the queue is empty; give --seeds")
	}
	sum, err := cr.c.Run(ctx, cr.f, crawler.RunOptions{
		Drain: true, DrainHorizon: drainHorizon, MaxPages: maxPages,
		Progress: a.stderr, ProgressEvery: time.Second,
	})
	fmt.Fprint(a.stdout, sum)
	if err != nil {
		return err
	}
	if cr.poll != nil {
		// Read what was fetched even after an interrupt: it is local.
		in, err := cr.poll.Ingest(context.WithoutCancel(ctx))
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "monitoring: %d polls queued, %d polled URLs read, %d new feed items, %d watch triggers, %d failed\n",
			polls, in.URLs, in.NewItems, in.Fired, in.Failed)
	}
	if ctx.Err() != nil {
		return crawlInterrupted(ctx, cmd)
	}
	return refusedError(sum)
}

// localCrawlFlags shape a crawl in this process; with --server they would
// be ignored.
var localCrawlFlags = append([]string{"max-pages", "cluster", "node", "wait-nodes", "include", "exclude"}, fetchFlags...)

// fetchFlags are the flags addFetchFlags declares.
var fetchFlags = []string{"resolve", "allow-private", "politeness-overrides"}

// addFetchFlags declares the flags that point a command's fetches at a
// server of one's own, such as a replay on loopback: --resolve,
// --allow-private and --politeness-overrides.
func addFetchFlags(cmd *cobra.Command) {
	addDialFlags(cmd)
	cmd.Flags().String("politeness-overrides", "", "per-host politeness as a YAML list, e.g. '[{host: tldr-en.test, min_delay: 0s, per_host: 8}]' for a replay on loopback; host is host:port, or the host name for all its ports (crawler.politeness.overrides)")
	bind(cmd.Flags(), map[string]string{"politeness-overrides": "crawler.politeness.overrides"})
}

// addDialFlags declares the flags of the crawler's dialer (crawler.DialContext),
// for commands that fetch through it: --resolve and --allow-private.
func addDialFlags(cmd *cobra.Command) {
	cmd.Flags().StringArray("resolve", nil, "HOST=ADDR: send requests for HOST to ADDR, e.g. tldr-en.test=127.0.0.1:8081 (crawler.resolve)")
	cmd.Flags().Bool("allow-private", false, "allow loopback and private addresses (crawler.allow_private)")
	bind(cmd.Flags(), map[string]string{
		"resolve":       "crawler.resolve",
		"allow-private": "crawler.allow_private",
	})
}

// checkSeedsGiven refuses a --seeds given without a URL in it ("", or
// only commas and spaces): the flag would read as left out, and the
// command resume the previous crawl instead of starting the one meant.
func checkSeedsGiven(cmd *cobra.Command, seeds []string) error {
	if !cmd.Flags().Changed("seeds") {
		return nil
	}
	for _, s := range seeds {
		if strings.TrimSpace(s) != "" {
			return nil
		}
	}
	return fmt.Errorf("--seeds %q: empty; give at least one URL, or leave --seeds out to resume", strings.Join(seeds, ","))
}

// crawlInterrupted ends a crawl stopped by a signal. What it fetched is
// committed, but the exit status must not say it finished: a script that
// runs a crawl and then an evaluation would read a part as the whole.
func crawlInterrupted(ctx context.Context, cmd *cobra.Command) error {
	return fmt.Errorf("crawl interrupted; what it fetched is kept, %s: %w", resumeHint(cmd), context.Cause(ctx))
}

// resumeHint says how to resume cmd's crawl: without --seeds, and with
// the flags that point its fetches at a server of one's own again, since
// the repository keeps the queue but not them.
func resumeHint(cmd *cobra.Command) string {
	var again []string
	for _, name := range fetchFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			again = append(again, "--"+name)
		}
	}
	if len(again) == 0 {
		return "run again without --seeds to resume"
	}
	return "run again without --seeds, with " + strings.Join(again, ", ") + " as before, to resume"
}

// refusedError explains a crawl that fetched nothing because the address
// guard refused its hosts, they did not answer, or they are deferred from
// an earlier run that they did not answer, and fails it: a zero summary
// and exit 0 would read as an empty site, or a finished crawl. Requests
// that all failed before an HTTP answer fetched nothing either.
func refusedError(sum crawler.Summary) error {
	switch {
	case sum.Answered() > 0:
		return nil
	case len(sum.Refused) > 0:
		return fmt.Errorf("nothing fetched: the address guard refused %s; "+
			"to crawl loopback or private addresses (your own test server), run again with --allow-private "+
			"(or crawler.allow_private: true); the URLs stay queued", crawler.HostReasons(sum.Refused, sum.RefusedMore, 0))
	case len(sum.Unreachable) > 0:
		return fmt.Errorf("nothing fetched: no answer from %s; the URLs stay queued for the next run",
			crawler.HostReasons(sum.Unreachable, sum.UnreachableMore, 0))
	case sum.Deferred() > 0:
		return fmt.Errorf("nothing fetched: the queue waits for hosts that did not answer for robots.txt "+
			"(crawler.robots.error_defer) or asked to back off (URLs waiting: %d); they stay queued: run again once the hosts are due", sum.Deferred())
	case sum.Fetched() > 0:
		return fmt.Errorf("nothing fetched: no request got an HTTP answer (%s failed before one); the URLs stay queued for the next run",
			plural.Count(int(sum.Fetched()), "request"))
	}
	return nil
}

// seedThrough gives seeds to the crawl of the running process whose admin
// listener is at server.
func (a *app) seedThrough(ctx context.Context, server, dataDir string, seeds []string) error {
	switch {
	case dataDir != "":
		return errDataAndServer
	case len(seeds) == 0:
		return errors.New("--server: give --seeds to hand to the running crawl")
	}
	var admitted struct{ Given, New int }
	if err := postAdmin(ctx, server, "/api/v1/seeds", adminAnswerTimeout, quickAdminLimit, map[string][]string{"urls": seeds}, &admitted); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d of %d seeds new to the crawl of %s\n", admitted.New, admitted.Given, server)
	return nil
}
