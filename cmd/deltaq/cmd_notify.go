package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/notify"
)

// newNotifyCmd is the owner's side of the notification outbox that watches
// and alerts deliver through: the key receivers check webhook signatures
// with, and the deliveries that failed notify.max_attempts times.
func (a *app) newNotifyCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{Use: "notify", Short: "The notification outbox: the webhook signing key, and deliveries that failed for good"}
	cmd.PersistentFlags().StringVar(&dataDir, "data", "", "data directory")
	cmd.AddCommand(&cobra.Command{
		Use:   "secret",
		Short: "Print the key webhooks are signed with (hex), made on first use",
		Long: `Print the key every webhook is signed with, in hex, making it if no
delivery has yet. A receiver checks the Deltaq-Signature header,
"sha256=" + hex(HMAC-SHA256(key, Deltaq-Timestamp + "." + body)), with
the key's bytes (the hex decoded), and may refuse old timestamps as replays.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withWatches(cmd, &dataDir, openKeyRepo, func(ctx context.Context, e *watchEnv) error {
				key, err := notify.NewService(e.outbox, notify.Options{Logger: e.logger}).Secret(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(key))
				return nil
			})
		},
	}, &cobra.Command{
		Use:   "dead",
		Short: "List the deliveries that failed notify.max_attempts times (dead letters)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withWatches(cmd, &dataDir, openCrawledRepo, func(ctx context.Context, e *watchEnv) error {
				dead, err := e.outbox.DeadLetters(ctx)
				if err != nil {
					return err
				}
				if len(dead) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "no dead letters")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NOTIFICATION\tTARGET\tATTEMPTS\tLAST ERROR")
				for _, d := range dead {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", d.ID, d.Target, d.Attempts, d.LastErr)
				}
				fmt.Fprintf(tw, "%d dead letters; deltaq notify retry sends them again\n", len(dead))
				return tw.Flush()
			})
		},
	}, &cobra.Command{
		Use:   "retry",
		Short: "Put every dead letter back in the outbox, due now, its attempts reset",
		Long: `Put every dead letter back in the outbox, due now, its attempts reset:
the next deltaq serve or run delivers them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withWatches(cmd, &dataDir, openCrawledRepo, func(ctx context.Context, e *watchEnv) error {
				n, err := e.outbox.Retry(ctx, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d dead letters back in the outbox\n", n)
				return nil
			})
		},
	})
	return cmd
}
