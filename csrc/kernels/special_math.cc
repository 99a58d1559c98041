// Scalar special functions (see special_math.h); the elementwise loops call them per element.
#include "kernels/special_math.h"

#include <cmath>
#include <limits>

namespace mindlite {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1.11022302462515654042e-16;  // 2^-53, Cephes' MACHEP
}  // namespace

double ml_lgamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

// psi(x): reflection below 0, recurrence up to 10, then the asymptotic series (error < 1e-16
// there). x = 0 gives -inf with the sign of zero flipped, as PyTorch; negative integers NaN.
double ml_digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  double result = 0;
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;
    // psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so x is reduced to its
    // distance from the nearest integer (exact), which keeps tiny arguments precise
    const double r = x - std::nearbyint(x);
    result = -kPi / std::tan(kPi * r);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == kInf) return kInf;
  const double z = 1 / (x * x);
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132)))));
  return result + std::log(x) - 0.5 / x - series;
}

// erf^-1: Giles' single-precision approximation ("Approximating the erfinv function", 2010)
// as the start, then two Halley steps on erf (erfc near +-1, where 1 - |y| is exact) to double
// precision.
double ml_erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  if (y == 0) return y;
  double w = -std::log((1 - y) * (1 + y));
  double x;
  if (w < 5) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  const double two_over_sqrt_pi = 1.12837916709551257390;
  const double a = std::fabs(y);
  for (int it = 0; it < 2; ++it) {
    // err = erf(x) - y, from erfc where |y| is near 1 (erf(x) rounds to 1 there)
    double err = a > 0.5 ? (y > 0 ? 1.0 : -1.0) * ((1 - a) - std::erfc(std::fabs(x)))
                         : std::erf(x) - y;
    double d = two_over_sqrt_pi * std::exp(-x * x);
    if (!(d > 0)) break;
    x -= err / (d - x * err);
  }
  return x;
}

// Hurwitz zeta, as Cephes' zeta.c (and PyTorch's zeta): direct sum until the terms are small
// against the sum, then the Euler-Maclaurin tail.
double ml_zeta(double s, double q) {
  static const double kA[] = {12.0,
                              -720.0,
                              30240.0,
                              -1209600.0,
                              47900160.0,
                              -1.8924375803183791606e9,
                              7.47242496e10,
                              -2.950130727918164224e12,
                              1.1646782814350067249e14,
                              -4.5979787224074726105e15,
                              1.8152105401943546773e17,
                              -7.1661652561756670113e18};
  // Cephes' order of the edge cases (a pole of q wins over a NaN s, as in PyTorch)
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;  // q^-s is not real
  }
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  double sum = std::pow(q, -s);
  double a = q;
  double b = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    i += 1;
    a += 1;
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b / sum) < kEps) return sum;
  }
  const double w = a;
  sum += b * w / (s - 1);
  sum -= 0.5 * b;
  double fac = 1;
  double k = 0;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= w;
    double t = fac * b / kA[j];
    sum += t;
    if (std::fabs(t / sum) < kEps) return sum;
    k += 1;
    fac *= s + k;
    b /= w;
    k += 1;
  }
  return sum;
}

// ---- Bessel functions of order 0 and 1 ---------------------------------------------------
namespace {

constexpr double kAsymptotic = 700;  // from here e^x overflows: I*e and K*e by their series
// Below this, cyl_bessel_i / cyl_bessel_k are replaced by their leading terms (exact to
// double precision here; libstdc++ throws for denormal arguments, which would abort).
constexpr double kTiny = 1e-8;
constexpr double kEulerGamma = 0.57721566490153286061;

double small_i(int nu, double a) { return nu == 0 ? 1 + a * a / 4 : a / 2; }

double small_k(int nu, double x) {
  return nu == 0 ? -(std::log(x / 2) + kEulerGamma) : 1 / x;
}

double cyl_i(int nu, double a) {
  return a < kTiny ? small_i(nu, a) : std::cyl_bessel_i(double(nu), a);
}

double cyl_k(int nu, double x) {
  return x < kTiny ? small_k(nu, x) : std::cyl_bessel_k(double(nu), x);
}

// sum_k c_k(nu) (s/x)^k with c_k = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (j 8): I's series has
// s = -1, K's s = +1 (Abramowitz & Stegun 9.7.1, 9.7.2); 20 terms reach 1e-16 at x >= 700.
double asymptotic_sum(int nu, double x, double s) {
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int j = 1; j < 20; ++j) {
    const double odd = 2.0 * j - 1;
    term *= (mu - odd * odd) / (j * 8.0 * x) * s;
    sum += term;
  }
  return sum;
}

// e^-x I_nu(x) for x >= 0
double scaled_i(int nu, double x) {
  if (std::isinf(x)) return 0;
  if (x < kAsymptotic) return std::exp(-x) * cyl_i(nu, x);
  return asymptotic_sum(nu, x, -1) / std::sqrt(2 * kPi * x);
}

// e^x K_nu(x) for x > 0
double scaled_k(int nu, double x) {
  if (std::isinf(x)) return 0;
  if (x < kAsymptotic) return std::exp(x) * cyl_k(nu, x);
  return asymptotic_sum(nu, x, 1) * std::sqrt(kPi / (2 * x));
}

}  // namespace

double ml_bessel_j0(double x) { return std::isinf(x) ? 0 : j0(x); }
double ml_bessel_j1(double x) { return std::isinf(x) ? 0 : j1(x); }

double ml_bessel_y0(double x) {
  if (x < 0 || std::isnan(x)) return kNaN;
  if (x == 0) return -kInf;
  return std::isinf(x) ? 0 : y0(x);
}

double ml_bessel_y1(double x) {
  if (x < 0 || std::isnan(x)) return kNaN;
  if (x == 0) return -kInf;
  return std::isinf(x) ? 0 : y1(x);
}

double ml_bessel_i0(double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  if (a < kAsymptotic) return cyl_i(0, a);
  return std::isinf(a) ? kInf : std::exp(a) * scaled_i(0, a);  // inf past log(DBL_MAX)
}

double ml_bessel_i0e(double x) { return std::isnan(x) ? x : scaled_i(0, std::fabs(x)); }

double ml_bessel_i1(double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  const double r = a < kAsymptotic ? cyl_i(1, a)
                  : std::isinf(a) ? kInf : std::exp(a) * scaled_i(1, a);
  return x < 0 ? -r : r;
}

double ml_bessel_i1e(double x) {
  if (std::isnan(x)) return x;
  const double r = scaled_i(1, std::fabs(x));
  return x < 0 ? -r : r;
}

double ml_bessel_k0(double x) {
  if (x < 0 || std::isnan(x)) return kNaN;
  if (x == 0) return kInf;
  return x < kAsymptotic ? cyl_k(0, x)
                        : std::isinf(x) ? 0 : std::exp(std::log(scaled_k(0, x)) - x);
}

double ml_bessel_k0e(double x) {
  if (x < 0 || std::isnan(x)) return kNaN;
  return x == 0 ? kInf : scaled_k(0, x);
}

double ml_bessel_k1(double x) {
  if (x < 0 || std::isnan(x)) return kNaN;
  if (x == 0) return kInf;
  return x < kAsymptotic ? cyl_k(1, x)
                        : std::isinf(x) ? 0 : std::exp(std::log(scaled_k(1, x)) - x);
}

double ml_bessel_k1e(double x) {
  if (x < 0 || std::isnan(x)) return kNaN;
  return x == 0 ? kInf : scaled_k(1, x);
}

// ---- regularized incomplete gamma (Cephes igam.c / igamc.c) -------------------------------
namespace {

constexpr double kBig = 4.503599627370496e15;
constexpr double kBigInv = 2.22044604925031308085e-16;

// exp(a log x - x - lgamma(a)), the common factor; 0 when it underflows
double igam_factor(double a, double x) {
  const double ax = a * std::log(x) - x - ml_lgamma(a);
  return ax < -709.78271289338399 ? 0.0 : std::exp(ax);
}

// P(a, x) by its power series (x < a + 1)
// (in logs: for a tiny a the factor e^(a log x - x - lgamma(a)) underflows while 1 / a
// overflows, so their product, P(2.2e-309, 0.5) = 1, is formed as one exponential)
double igam_series(double a, double x) {
  double r = a, c = 1, ans = 1;
  do {
    r += 1;
    c *= x / r;
    ans += c;
  } while (c / ans > kEps);
  const double lp = a * std::log(x) - x - ml_lgamma(a) + std::log(ans) - std::log(a);
  return lp < -745.2 ? 0.0 : std::exp(lp);
}

// Q(a, x) by its continued fraction (x >= a + 1)
double igamc_fraction(double a, double x) {
  const double ax = igam_factor(a, x);
  if (ax == 0) return 0;
  double y = 1 - a, z = x + y + 1, c = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x;
  double ans = pkm1 / qkm1, t;
  do {
    c += 1;
    y += 1;
    z += 2;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc;
    const double qk = qkm1 * z - qkm2 * yc;
    if (qk != 0) {
      const double r = pk / qk;
      t = std::fabs((ans - r) / r);
      ans = r;
    } else {
      t = 1;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (std::fabs(pk) > kBig) {
      pkm2 *= kBigInv;
      pkm1 *= kBigInv;
      qkm2 *= kBigInv;
      qkm1 *= kBigInv;
    }
  } while (t > kEps);
  return ans * ax;
}

}  // namespace

// The edge cases in Cephes' / PyTorch's order (x = 0 gives 0 even for a NaN a).
double ml_igamma(double a, double x) {
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 1.0 : kNaN;
  if (x == 0) return 0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0.0;
  if (std::isinf(x)) return 1;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  if (x > 1 && x > a) return 1 - igamc_fraction(a, x);
  return igam_series(a, x);
}

double ml_igammac(double a, double x) {
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 0.0 : kNaN;
  if (x == 0) return 1;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1.0;
  if (std::isinf(x)) return 0;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  if (x < 1 || x < a) return 1 - igam_series(a, x);
  return igamc_fraction(a, x);
}

}  // namespace mindlite
