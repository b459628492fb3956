package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/repo"
)

func (a *app) newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run a NATS server for a crawl cluster, or show the cluster's state",
		Long: `A crawl cluster is several "deltaq crawl --cluster nats://... --node NAME"
processes sharing the hosts by shard through NATS JetStream. "cluster serve"
runs one NATS server with JetStream (three, routed to each other, survive the
loss of one); "cluster status" shows the shards, their owners and lags, each
node's rate, and the nodes of the cluster's search; "cluster forget" removes a
search node that stopped without leaving from the nodes answers name missing.`,
	}
	cmd.AddCommand(a.newClusterServeCmd(), a.newClusterStatusCmd(), a.newClusterForgetCmd())
	return cmd
}

func (a *app) newClusterForgetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "forget --cluster nats://... NODE",
		Short: "Remove a search node that stopped without leaving, so answers no longer name it missing",
		Long: `A node serving search ("deltaq serve --cluster") that is killed or cut off
stays a member of the cluster's search, and every answer names it missing
(web.Response.Partial) until it serves again. "cluster forget" removes it, for
a node that will not come back. A node whose heartbeat is alive is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadCluster(cmd)
			if err != nil {
				return err
			}
			if err := cluster.ForgetSearchNode(cmd.Context(), cfg.Cluster.URL, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "cluster: search node %s forgotten\n", args[0])
			return nil
		},
	}
	addClusterFlag(cmd)
	return cmd
}

func (a *app) newClusterServeCmd() *cobra.Command {
	var sc cluster.ServerConfig
	cmd := &cobra.Command{
		Use:   "serve --listen HOST:PORT --store DIR [--name NAME --cluster-listen HOST:PORT --routes nats-route://...]",
		Short: "Run a NATS server with JetStream for a crawl cluster until interrupted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.load(cmd); err != nil {
				return err
			}
			err := cluster.Serve(cmd.Context(), sc, func(url string) {
				fmt.Fprintf(a.stderr, "cluster: NATS server %s serving %s; stop with Ctrl-C\n", sc.Name, url)
			})
			if err == nil {
				fmt.Fprintf(a.stderr, "cluster: NATS server %s stopped\n", sc.Name)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&sc.Name, "name", "deltaq-nats", "server name, unique among the cluster's servers")
	cmd.Flags().StringVar(&sc.Listen, "listen", "127.0.0.1:4222", "client address the crawl nodes connect to")
	cmd.Flags().StringVar(&sc.Cluster, "cluster-listen", "", "route address for the other servers, host:port (empty: a single server)")
	cmd.Flags().StringSliceVar(&sc.Routes, "routes", nil, "the other servers' route URLs, nats-route://host:port (comma-separated or repeated)")
	cmd.Flags().StringVar(&sc.StoreDir, "store", "", "JetStream storage directory")
	return cmd
}

func (a *app) newClusterStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status --cluster nats://...",
		Short: "Show the shards, their owners and lags, each node's rate, and the search's nodes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadCluster(cmd)
			if err != nil {
				return err
			}
			st, err := cluster.ReadStatus(cmd.Context(), cfg.Cluster.URL, cfg.Cluster.Shards)
			if err != nil {
				return err
			}
			return st.Write(a.stdout)
		},
	}
	addClusterFlag(cmd)
	return cmd
}

// addClusterFlag gives cmd the --cluster flag loadCluster requires.
func addClusterFlag(cmd *cobra.Command) {
	cmd.Flags().String("cluster", "", "NATS servers of the cluster, nats://host:4222,... (cluster.url)")
	bind(cmd.Flags(), map[string]string{"cluster": "cluster.url"})
}

// loadCluster is load for a command that talks to the cluster's NATS
// servers, which it requires (addClusterFlag).
func (a *app) loadCluster(cmd *cobra.Command) (*configs.Config, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	if cfg.Cluster.URL == "" {
		return nil, errors.New("--cluster: the NATS servers of the cluster are required (cluster.url)")
	}
	return cfg, nil
}

// joinCluster joins the crawl cluster of cfg.Cluster as a node whose
// repository is not open yet (crawlNode gives it): `deltaq crawl
// --cluster` joins before it makes its data directory, so that a cluster
// it cannot reach leaves nothing behind.
func joinCluster(ctx context.Context, cfg *configs.Config, logger *slog.Logger) (*cluster.Member, error) {
	return cluster.Join(ctx, cfg.Cluster, cluster.Options{Logger: logger, DrainHorizon: drainHorizon})
}

// crawlNode runs `deltaq crawl` as one node of a cluster, joined as m
// (joinCluster) with db its repository, for cmd: wait for the other nodes, seed
// (handing other shards' seeds over), crawl until the whole cluster is
// idle, leave. The caller closes m.
func (a *app) crawlNode(ctx context.Context, cmd *cobra.Command, m *cluster.Member, db *repo.DB, cfg *configs.Config, logger *slog.Logger, seeds []string, maxPages, nodes int) error {
	m.UseRepo(db)
	cr, err := newNodeCrawl(ctx, db, cfg, logger, m)
	if err != nil {
		return err
	}
	memberCtx, leave := context.WithCancel(ctx)
	defer leave()
	crawlCtx, stopCrawl := context.WithCancel(ctx)
	defer stopCrawl()
	memberDone := make(chan error, 1)
	go func() {
		err := m.Run(memberCtx, cr.c, cr.f)
		stopCrawl() // the node cannot crawl without its leases
		memberDone <- err
	}()
	fmt.Fprintf(a.stderr, "crawl: node %s joined %s; waiting for %d node(s) to share %d shards\n", cfg.Cluster.Node, cfg.Cluster.URL, nodes, cfg.Cluster.Shards)
	if err := m.WaitNodes(crawlCtx, nodes); err != nil {
		leave()
		return errors.Join(fmt.Errorf("crawl: waiting for %d nodes: %w", nodes, err), <-memberDone)
	}
	fmt.Fprintf(a.stderr, "crawl: node %s holds shards %v\n", cfg.Cluster.Node, m.Leases().Owned())
	if len(seeds) > 0 {
		n, err := cr.c.Seed(ctx, cr.f, seeds)
		if err != nil {
			leave()
			return errors.Join(err, <-memberDone)
		}
		fmt.Fprintf(a.stderr, "crawl: %d of %d seeds new here (the others' are handed over)\n", n, len(seeds))
	}
	quiet := make(chan error, 1)
	go func() {
		err := m.Quiesce(crawlCtx)
		stopCrawl()
		quiet <- err
	}()
	sum, err := cr.c.Run(crawlCtx, cr.f, crawler.RunOptions{MaxPages: maxPages, Progress: a.stderr, ProgressEvery: time.Second})
	stopCrawl()
	qerr := <-quiet
	leave()
	merr := <-memberDone
	fmt.Fprint(a.stdout, sum)
	st := m.Stats()
	fmt.Fprintf(a.stdout, "cluster: node %s; %d handoffs published (%d duplicates, %d bytes), %d received, %d new, %d lost, %d left to the next reader\n",
		cfg.Cluster.Node, st.Published.Load(), st.Duplicates.Load(), st.Bytes.Load(), st.Received.Load(), st.Admitted.Load(), st.Lost.Load(), st.StaleAcks.Load())
	if pub := st.Published.Load(); pub > 0 && st.Duplicates.Load() == pub && st.Received.Load() == 0 && sum.Requests == 0 {
		// The cluster's memory of URLs queued, not an empty site: a
		// second crawl of the same seeds on the same NATS store.
		fmt.Fprintf(a.stdout, "cluster: every URL handed off was queued by the cluster within cluster.dedup (%s) before, so none was fetched again; to crawl them anew, use a new NATS store (cluster serve --store) or wait out cluster.dedup\n", cfg.Cluster.Dedup)
	}
	if err != nil {
		return err
	}
	if merr != nil {
		return merr
	}
	if ctx.Err() != nil {
		return crawlInterrupted(ctx, cmd)
	}
	if qerr != nil && !errors.Is(qerr, context.Canceled) {
		return qerr
	}
	return refusedError(sum)
}
