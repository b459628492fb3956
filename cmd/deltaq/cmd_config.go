package main

import (
	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
)

func (a *app) newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show or check the configuration",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "print",
		Short: "Print the effective configuration (defaults, file, environment, flags merged)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := configs.Effective(a.sources(cmd))
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(out)
			return err
		},
	}, &cobra.Command{
		Use:   "defaults",
		Short: "Print configs/default.yaml, every setting with its comment",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := a.stdout.Write(configs.DefaultYAML)
			return err
		},
	})
	return cmd
}
