package monitor

import "fmt"

// Config is the monitor section of configs/default.yaml.
type Config struct {
	MaxLookback int `mapstructure:"max_lookback"`
}

// Validate names the bad key, its value and the limit.
func (c Config) Validate() error {
	if c.MaxLookback < 1 {
		return fmt.Errorf("monitor.max_lookback = %d: must be ≥ 1 instant", c.MaxLookback)
	}
	return nil
}
