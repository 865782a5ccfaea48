//! jq's math builtins (the C library's functions, by name and argument count), over musl's
//! algorithms so results are the same on every target: the module calls wasi-libc's (musl), and
//! native builds (the unit tests) the `libm` crate, musl's port to Rust.
//!
//! One-argument functions apply to the input (`2 | sqrt`); the others take their arguments as
//! filter arguments and ignore the input (`pow(2; 10)`), as in jq.

use jaq_core::native::{bome, v, Filter};
use jaq_core::RunPtr;

use super::engine::JqData;
use super::val::{err, Res, Val};

fn number(v: &Val) -> Res<f64> {
    v.as_f64()
        .ok_or_else(|| err(format!("{} number required", v.describe())))
}

fn pair(a: f64, b: f64) -> Val {
    Val::arr(vec![Val::num(a), Val::num(b)])
}

/// `name`: a function of the input.
macro_rules! unary {
    ($name:literal, $f:expr) => {
        ($name, v(0), |cv| {
            bome(number(&cv.1).map(|x| Val::from(($f)(x))))
        })
    };
}

/// `name(a; b)`: a function of two number arguments.
macro_rules! binary {
    ($name:literal, $f:expr) => {
        ($name, v(2), |mut cv| {
            let b = cv.0.pop_var();
            let a = cv.0.pop_var();
            bome(call2(&a, &b, $f))
        })
    };
}

fn call2(a: &Val, b: &Val, f: impl Fn(f64, f64) -> f64) -> Res<Val> {
    Ok(Val::num(f(number(a)?, number(b)?)))
}

fn int(x: f64) -> i32 {
    x as i32
}

/// Every math builtin.
pub fn funs() -> Box<[Filter<RunPtr<JqData>>]> {
    Box::new([
        unary!("acos", libm::acos),
        unary!("acosh", libm::acosh),
        unary!("asin", libm::asin),
        unary!("asinh", libm::asinh),
        unary!("atan", libm::atan),
        unary!("atanh", libm::atanh),
        unary!("cbrt", libm::cbrt),
        unary!("ceil", libm::ceil),
        unary!("cos", libm::cos),
        unary!("cosh", libm::cosh),
        unary!("erf", libm::erf),
        unary!("erfc", libm::erfc),
        unary!("exp", libm::exp),
        unary!("exp10", libm::exp10),
        unary!("exp2", libm::exp2),
        unary!("expm1", libm::expm1),
        unary!("fabs", libm::fabs),
        unary!("floor", libm::floor),
        unary!("gamma", libm::lgamma),
        unary!("ilogb", |x| f64::from(libm::ilogb(x))),
        unary!("j0", libm::j0),
        unary!("j1", libm::j1),
        unary!("lgamma", libm::lgamma),
        unary!("log", libm::log),
        unary!("log10", libm::log10),
        unary!("log1p", libm::log1p),
        unary!("log2", libm::log2),
        unary!("nearbyint", libm::rint),
        unary!("pow10", libm::exp10),
        unary!("rint", libm::rint),
        unary!("round", libm::round),
        unary!("sin", libm::sin),
        unary!("sinh", libm::sinh),
        unary!("sqrt", libm::sqrt),
        unary!("tan", libm::tan),
        unary!("tanh", libm::tanh),
        unary!("tgamma", libm::tgamma),
        unary!("trunc", libm::trunc),
        unary!("y0", libm::y0),
        unary!("y1", libm::y1),
        unary!("frexp", |x| {
            let (m, e) = libm::frexp(x);
            pair(m, f64::from(e))
        }),
        unary!("modf", |x| {
            let (frac, whole) = libm::modf(x);
            pair(frac, whole)
        }),
        unary!("lgamma_r", |x| {
            let (y, sign) = libm::lgamma_r(x);
            pair(y, f64::from(sign))
        }),
        binary!("atan2", libm::atan2),
        binary!("copysign", libm::copysign),
        binary!("drem", libm::remainder),
        binary!("fdim", libm::fdim),
        binary!("fmax", libm::fmax),
        binary!("fmin", libm::fmin),
        binary!("fmod", libm::fmod),
        binary!("hypot", libm::hypot),
        binary!("jn", |n, x| libm::jn(int(n), x)),
        binary!("ldexp", |x, e| libm::ldexp(x, int(e))),
        binary!("nextafter", libm::nextafter),
        binary!("nexttoward", libm::nextafter),
        binary!("pow", libm::pow),
        binary!("remainder", libm::remainder),
        binary!("scalb", |x, e| x * libm::exp2(e)),
        binary!("scalbln", |x, e| libm::scalbn(x, int(e))),
        binary!("yn", |n, x| libm::yn(int(n), x)),
        ("fma", v(3), |mut cv| {
            let c = cv.0.pop_var();
            let b = cv.0.pop_var();
            let a = cv.0.pop_var();
            bome(number(&a).and_then(|a| call2(&b, &c, |b, c| libm::fma(a, b, c))))
        }),
    ])
}

/// wasi-libc's math functions, in the `libm` crate's signatures. The module links them anyway
/// (the standard library's `f64` methods and QuickJS call them), so this keeps one copy of
/// musl's math instead of two (the `libm` crate was 30 KB of code, plus its tables).
#[cfg(target_family = "wasm")]
mod libm {
    mod c {
        extern "C" {
            pub fn frexp(x: f64, exp: *mut i32) -> f64;
            pub fn modf(x: f64, whole: *mut f64) -> f64;
            pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
            pub fn ilogb(x: f64) -> i32;
            pub fn jn(n: i32, x: f64) -> f64;
            pub fn yn(n: i32, x: f64) -> f64;
            pub fn ldexp(x: f64, exp: i32) -> f64;
            pub fn scalbn(x: f64, exp: i32) -> f64;
            pub fn fma(a: f64, b: f64, c: f64) -> f64;
        }
    }

    /// Safe wrappers: the C functions read only their arguments (errno aside, which nothing
    /// reads).
    macro_rules! wrap {
        ($($name:ident($($arg:ident),+);)+) => {
            mod raw {
                extern "C" {
                    $(pub fn $name($($arg: f64),+) -> f64;)+
                }
            }
            $(pub fn $name($($arg: f64),+) -> f64 {
                // SAFETY: a pure function of its arguments.
                unsafe { raw::$name($($arg),+) }
            })+
        };
    }

    wrap! {
        acos(x); acosh(x); asin(x); asinh(x); atan(x); atanh(x); cbrt(x); ceil(x); cos(x);
        cosh(x); erf(x); erfc(x); exp(x); exp10(x); exp2(x); expm1(x); fabs(x); floor(x);
        lgamma(x); j0(x); j1(x); log(x); log10(x); log1p(x); log2(x); rint(x); round(x); sin(x);
        sinh(x); sqrt(x); tan(x); tanh(x); tgamma(x); trunc(x); y0(x); y1(x);
        atan2(y, x); copysign(x, y); remainder(x, y); fdim(x, y); fmax(x, y); fmin(x, y);
        fmod(x, y); hypot(x, y); nextafter(x, y); pow(x, y);
    }

    pub fn frexp(x: f64) -> (f64, i32) {
        let mut exp = 0;
        // SAFETY: writes the exponent through a valid pointer.
        (unsafe { c::frexp(x, &mut exp) }, exp)
    }

    pub fn modf(x: f64) -> (f64, f64) {
        let mut whole = 0.0;
        // SAFETY: writes the integral part through a valid pointer.
        (unsafe { c::modf(x, &mut whole) }, whole)
    }

    pub fn lgamma_r(x: f64) -> (f64, i32) {
        let mut sign = 0;
        // SAFETY: writes the sign through a valid pointer.
        (unsafe { c::lgamma_r(x, &mut sign) }, sign)
    }

    pub fn ilogb(x: f64) -> i32 {
        // SAFETY: a pure function of its argument.
        unsafe { c::ilogb(x) }
    }

    pub fn jn(n: i32, x: f64) -> f64 {
        // SAFETY: a pure function of its arguments.
        unsafe { c::jn(n, x) }
    }

    pub fn yn(n: i32, x: f64) -> f64 {
        // SAFETY: a pure function of its arguments.
        unsafe { c::yn(n, x) }
    }

    pub fn ldexp(x: f64, exp: i32) -> f64 {
        // SAFETY: a pure function of its arguments.
        unsafe { c::ldexp(x, exp) }
    }

    pub fn scalbn(x: f64, exp: i32) -> f64 {
        // SAFETY: a pure function of its arguments.
        unsafe { c::scalbn(x, exp) }
    }

    pub fn fma(a: f64, b: f64, c: f64) -> f64 {
        // SAFETY: a pure function of its arguments.
        unsafe { self::c::fma(a, b, c) }
    }
}
