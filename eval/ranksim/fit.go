package ranksim

import (
	"errors"
	"math"
)

// quadFit returns (α, β, γ) minimizing Σ w_i (α x_i² + β x_i + γ − y_i)²,
// by solving the 3×3 normal equations.
func quadFit(x, y, w []float64) (a, b, c float64, err error) {
	var s [5]float64 // Σ w·x^k, k = 0..4
	var t [3]float64 // Σ w·x^k·y, k = 0..2
	for i := range x {
		p := w[i]
		for k := range s {
			if k < 3 {
				t[k] += p * y[i]
			}
			s[k] += p
			p *= x[i]
		}
	}
	// Normal equations for unknowns (γ, β, α):
	//   | s0 s1 s2 | |γ|   |t0|
	//   | s1 s2 s3 | |β| = |t1|
	//   | s2 s3 s4 | |α|   |t2|
	m := [3][4]float64{
		{s[0], s[1], s[2], t[0]},
		{s[1], s[2], s[3], t[1]},
		{s[2], s[3], s[4], t[2]},
	}
	for col := range 3 {
		piv := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if math.Abs(m[piv][col]) < 1e-300 {
			return 0, 0, 0, errors.New("ranksim: quadratic fit is singular")
		}
		m[col], m[piv] = m[piv], m[col]
		for r := range 3 {
			if r == col {
				continue
			}
			f := m[r][col] / m[col][col]
			for k := col; k < 4; k++ {
				m[r][k] -= f * m[col][k]
			}
		}
	}
	c = m[0][3] / m[0][0]
	b = m[1][3] / m[1][1]
	a = m[2][3] / m[2][2]
	return a, b, c, nil
}
