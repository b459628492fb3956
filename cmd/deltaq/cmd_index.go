package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

func (a *app) newIndexCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "index", Short: "Manage the search index (derived from the repository)"}
	var dataDir string
	rebuild := &cobra.Command{
		Use:   "rebuild --data DIR",
		Short: "Rebuild the index from every indexable page of the repository",
		Long: `rebuild builds the index under DIR/index afresh from the repository, which
it only reads. The index is derived data, so whatever state it is in, it
is rebuilt: one that cannot be opened (corrupt metadata or segments) or
that was built with another index.scoring is discarded first. A directory
there that is not an index at all is left alone, and the rebuild stops.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, db, logger, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			ix, err := openIndex(dataDir, cfg, db, index.Options{Logger: logger, Recreate: true})
			if err != nil {
				return err
			}
			defer ix.Close()
			st, err := ix.Rebuild(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "rebuilt: %d documents indexed in %s (watermark %d)\n", st.Indexed, st.Took.Round(time.Millisecond), st.Watermark)
			return nil
		},
	}
	rebuild.Flags().StringVar(&dataDir, "data", "", "data directory (repository and index)")
	cmd.AddCommand(rebuild)
	return cmd
}

func (a *app) newPageCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "page", Short: "Inspect what the repository knows of a page"}
	var (
		dataDir string
		asJSON  bool
	)
	explain := &cobra.Command{
		Use:   "explain URL --data DIR [--json]",
		Short: "A page's fetch history, ΔQ_A measurements, δQ_A estimate and recrawl priority, and why",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			u, err := urlnorm.NormalizeGiven(args[0])
			if err != nil {
				return fmt.Errorf("URL %s: %w", urlnorm.Quote(args[0]), err)
			}
			db, err := openCrawledRepo(dataDir, cfg, a.logger(cfg))
			if err != nil {
				return err
			}
			defer db.Close()
			explain := func(ctx context.Context, url string) (frontier.Explanation, error) {
				return frontier.ExplainPage(ctx, db, cfg.Frontier, url, time.Now(), nil)
			}
			rep, err := web.BuildPageReport(cmd.Context(), db, explain, u)
			if errors.Is(err, repo.ErrNotFound) {
				// As rm says it: with the near URLs the repository holds.
				msg, nerr := notHeld(db, args[0], u)
				if nerr != nil {
					return nerr
				}
				return errors.New(msg)
			}
			if err != nil {
				return fmt.Errorf("page %s: %w", u, err)
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return rep.WriteText(a.stdout)
		},
	}
	explain.Flags().StringVar(&dataDir, "data", "", "data directory")
	explain.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON (the shape of GET /api/v1/page)")
	cmd.AddCommand(explain)
	return cmd
}

func (a *app) newAdsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "ads", Short: "Operate the ads store"}
	var (
		dataDir, name string
		budget        float64
		daily         ads.Money
	)
	create := &cobra.Command{
		Use:   "create-advertiser --data DIR --name NAME [--daily-budget N] [--time-zone ZONE]",
		Short: "Create an advertiser and print its API key (shown once; only its hash is stored)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, db, logger, err := a.loadCrawledRepo(cmd, dataDir, func(c *configs.Config) error {
				if name == "" {
					return errors.New("--name: required")
				}
				var err error
				daily, err = c.Ads.BudgetIn("--daily-budget", budget)
				return err
			})
			if err != nil {
				return err
			}
			defer db.Close()
			store, err := ads.Open(cmd.Context(), db, cfg.Ads, ads.Options{Logger: logger})
			if err != nil {
				return err
			}
			defer store.Close(cmd.Context())
			adv, key, err := store.CreateAdvertiser(cmd.Context(), ads.AdvertiserParams{
				Name: name, DailyBudget: daily, TimeZone: cfg.Ads.TimeZone,
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "advertiser %v created; API key (keep it, it is not shown again):\n%s\n", adv.ID, key)
			return nil
		},
	}
	create.Flags().StringVar(&dataDir, "data", "", "data directory")
	create.Flags().StringVar(&name, "name", "", "advertiser name")
	create.Flags().Float64Var(&budget, "daily-budget", 0, "daily budget in currency units (0 = none)")
	create.Flags().String("time-zone", "", "IANA time zone of the daily reset (ads.time_zone)")
	bind(create.Flags(), map[string]string{"time-zone": "ads.time_zone"})
	cmd.AddCommand(create)
	return cmd
}
