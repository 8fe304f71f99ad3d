//! The closed sets of names an option takes (`--loss`, `--space`, `--covariance`, `--format`,
//! `lr --law/--method/--curvature`, `schedule fit --law`, `schedule cooldown --decay`): each a
//! small `clap::ValueEnum`, so that clap lists the names in `--help` and in its error for a
//! name it does not know, and each maps to the library's own enum (which knows no clap). The
//! names are the library's (`LossKind::name`, `Space::name`, ...); a test below holds them
//! equal.

use clap::ValueEnum;
use scalinglaws::analysis::lr::{Curvature, Form, Method};
use scalinglaws::analysis::schedule::spec::Decay;
use scalinglaws::analysis::schedule::CurveLaw;
use scalinglaws::fit::{Covariance, LossKind, Space};
use scalinglaws_report::Format;

/// One option's names: a `ValueEnum` whose variants are spelled as given, and its conversion
/// to the library's enum.
macro_rules! names {
    ($(#[$doc:meta])* $name:ident => $library:ty {
        $($variant:ident = $text:literal => $value:expr),+ $(,)?
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
        pub enum $name {
            $(#[value(name = $text)] $variant),+
        }

        impl From<$name> for $library {
            fn from(name: $name) -> $library {
                match name {
                    $($name::$variant => $value),+
                }
            }
        }
    };
}

/// The command-line name of a library value: a library default as clap shows it.
pub fn named<N: ValueEnum + Copy + Into<L>, L: PartialEq>(value: L) -> N {
    *N::value_variants()
        .iter()
        .find(|name| (**name).into() == value)
        .expect("every library value has a command-line name (tested below)")
}

names! {
    /// `--loss`: the robust loss per residual.
    Loss => LossKind {
        Linear = "linear" => LossKind::Linear,
        Huber = "huber" => LossKind::Huber,
        SoftL1 = "soft_l1" => LossKind::SoftL1,
        Cauchy = "cauchy" => LossKind::Cauchy,
        Arctan = "arctan" => LossKind::Arctan,
    }
}

names! {
    /// `--space`: where residuals are taken.
    ResidualSpace => Space {
        Log = "log" => Space::Log,
        Linear = "linear" => Space::Linear,
    }
}

names! {
    /// `--covariance`: the covariance behind the standard errors.
    CovarianceKind => Covariance {
        Auto = "auto" => Covariance::Auto,
        GaussNewton = "gauss_newton" => Covariance::GaussNewton,
        Hessian = "hessian" => Covariance::Hessian,
        Sandwich = "sandwich" => Covariance::Sandwich,
        SmoothedSandwich = "smoothed_sandwich" => Covariance::SmoothedSandwich,
    }
}

names! {
    /// `--format`: how a printed report is written (JSON is `--json`'s).
    ReportFormat => Format {
        Text = "text" => Format::Text,
        Markdown = "markdown" => Format::Markdown,
        Html = "html" => Format::Html,
    }
}

names! {
    /// `lr --law`: the form of the optimal-LR law.
    LrForm => Form {
        Loglinear = "loglinear" => Form::Loglinear,
        Curved = "curved" => Form::Curved,
    }
}

names! {
    /// `lr --method`: how the law over cells is estimated.
    LrMethod => Method {
        Joint = "joint" => Method::Joint,
        Cells = "cells" => Method::Cells,
    }
}

names! {
    /// `lr --curvature`: the joint fit's profile curvatures.
    LrCurvature => Curvature {
        Law = "law" => Curvature::Law,
        Cell = "cell" => Curvature::Cell,
    }
}

names! {
    /// `schedule fit --law`: the curve law.
    ScheduleLaw => CurveLaw {
        MultiPower = "multi_power" => CurveLaw::MultiPower,
        LrAnnealing = "lr_annealing" => CurveLaw::LrAnnealing,
        PowerArea = "power_area" => CurveLaw::PowerArea,
        Fsl = "fsl" => CurveLaw::Fsl,
    }
}

names! {
    /// `schedule cooldown --decay`: the shape of the cooldown.
    CooldownShape => Decay {
        Linear = "linear" => Decay::Linear,
        Exp = "exp" => Decay::Exp,
        Cosine = "cosine" => Decay::Cosine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clap default of `schedule cooldown --decay` is the library's, which Python's
    /// `decay=None` gets.
    #[test]
    fn the_cooldown_default_is_the_librarys() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cooldown {
            #[command(flatten)]
            args: crate::args::schedule::CooldownArgs,
        }
        let parsed = Cooldown::try_parse_from(["cooldown", "fit.json", "--at", "1", "--len", "1"])
            .expect("parses");
        assert_eq!(
            Decay::from(parsed.args.decay),
            scalinglaws::workflow::schedule_cooldown::COOLDOWN_DECAY
        );
    }

    /// Every name of `T` as clap parses it, with the library's name of what it maps to.
    fn spelled<T: ValueEnum + Copy, L>(name: impl Fn(L) -> String) -> Vec<(String, String)>
    where
        L: From<T>,
    {
        T::value_variants()
            .iter()
            .map(|v| {
                let typed = v.to_possible_value().expect("no skipped names");
                (typed.get_name().to_string(), name(L::from(*v)))
            })
            .collect()
    }

    fn assert_same(pairs: Vec<(String, String)>) {
        for (typed, library) in &pairs {
            assert_eq!(typed, library, "the option's name must be the library's");
        }
    }

    #[test]
    fn names_are_the_librarys_and_cover_it() {
        let losses = spelled::<Loss, LossKind>(|l| l.name().to_string());
        assert_eq!(losses.len(), LossKind::ALL.len());
        assert_same(losses);
        assert_same(spelled::<ResidualSpace, Space>(|s| s.name().to_string()));
        assert_same(spelled::<CovarianceKind, Covariance>(|c| {
            c.name().to_string()
        }));
        assert_same(spelled::<ReportFormat, Format>(|f| f.name().to_string()));
        let forms = spelled::<LrForm, Form>(|f| f.name().to_string());
        assert_eq!(forms.len(), Form::ALL.len());
        assert_same(forms);
        let methods = spelled::<LrMethod, Method>(|m| m.name().to_string());
        assert_eq!(methods.len(), Method::ALL.len());
        assert_same(methods);
        let curvatures = spelled::<LrCurvature, Curvature>(|c| c.name().to_string());
        assert_eq!(curvatures.len(), Curvature::ALL.len());
        assert_same(curvatures);
        let laws = spelled::<ScheduleLaw, CurveLaw>(|l| l.name().to_string());
        assert_eq!(laws.len(), CurveLaw::ALL.len());
        assert_same(laws);
        assert_same(spelled::<CooldownShape, Decay>(|d| d.name().to_string()));
    }

    #[test]
    fn every_covariance_name_parses_back() {
        for kind in CovarianceKind::value_variants() {
            let library = Covariance::from(*kind);
            assert_eq!(Covariance::parse(library.name()).unwrap(), library);
        }
        for shape in CooldownShape::value_variants() {
            let library = Decay::from(*shape);
            assert_eq!(Decay::parse(library.name()).unwrap(), library);
        }
    }
}
