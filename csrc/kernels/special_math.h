// Scalar special functions the C library lacks (or offers only with global state): the loops
// of the unary / binary tables (unary_impl.inc, binary_impl.inc) call them per element.
//
//   ml_lgamma(x)      log|Gamma(x)| through lgamma_r (std::lgamma writes the global signgam)
//   ml_digamma(x)     psi(x) = d/dx log Gamma(x); poles (x = 0, -1, ...) give NaN, as PyTorch
//   ml_erfinv(y)      erf^-1(y) on [-1, 1]: +-inf at +-1, NaN outside
//   ml_zeta(s, q)     Hurwitz zeta sum_k (k + q)^-s for s > 1 (Cephes' Euler-Maclaurin form)
//   ml_bessel_*(x)    Bessel functions of order 0 and 1: J, Y (libm's j0/j1/y0/y1), modified
//                     I, K (C++17's cyl_bessel_i/k, their asymptotic series from x = 700) and
//                     the exponentially scaled I*e = e^-|x| I, K*e = e^x K; outside a
//                     function's domain (Y, K at x < 0) NaN, at its poles (x = 0) +-inf
// Each is written for double; the float loops evaluate in double and round once.
#pragma once

namespace mindlite {

double ml_lgamma(double x);
double ml_digamma(double x);
double ml_erfinv(double y);
double ml_zeta(double s, double q);
double ml_igamma(double a, double x);   // P(a, x), the regularized lower incomplete gamma
double ml_igammac(double a, double x);  // Q(a, x) = 1 - P(a, x)
double ml_bessel_j0(double x);
double ml_bessel_j1(double x);
double ml_bessel_y0(double x);
double ml_bessel_y1(double x);
double ml_bessel_i0(double x);
double ml_bessel_i0e(double x);
double ml_bessel_i1(double x);
double ml_bessel_i1e(double x);
double ml_bessel_k0(double x);
double ml_bessel_k0e(double x);
double ml_bessel_k1(double x);
double ml_bessel_k1e(double x);

}  // namespace mindlite
