//! The joint fit: the law rewritten with one copy of every unshared parameter per track
//! (selected by indicator variables), its data, warm starts from the separate fits, its
//! bootstrap, and its messages in the user's words.

use super::*;

/// Where each track's parameters sit in the joint law's parameter vector.
pub(super) struct JointLayout {
    /// `index[t][p]`: the joint index of parameter p of the law for track t.
    pub(super) index: Vec<Vec<usize>>,
}

impl JointLayout {
    pub(super) fn track_params(&self, joint: &[f64], t: usize) -> Vec<f64> {
        self.index[t].iter().map(|&i| joint[i]).collect()
    }
}

/// The law with one copy of every unshared parameter per track, selected by indicator
/// variables `track__1`, `track__2`, ….
pub(super) fn joint_law(law: &Law, shared: &[String], tracks: usize) -> Result<(Law, JointLayout)> {
    let mut definitions = String::new();
    let mut params: Vec<ParamSpec> = Vec::new();
    let mut index = vec![vec![0; law.params.len()]; tracks];
    for (p, spec) in law.params.iter().enumerate() {
        if shared.contains(&spec.name) {
            for row in index.iter_mut() {
                row[p] = params.len();
            }
            params.push(spec.clone());
            continue;
        }
        let terms: Vec<String> = (1..=tracks)
            .map(|t| format!("{}__{t}*track__{t}", spec.name))
            .collect();
        definitions.push_str(&format!("{} = {}; ", spec.name, terms.join(" + ")));
        for (t, row) in index.iter_mut().enumerate() {
            row[p] = params.len();
            params.push(ParamSpec {
                name: format!("{}__{}", spec.name, t + 1),
                // One start value per copy: the joint search starts from the separate fits,
                // and the shared parameters keep their grid.
                grid: match &spec.grid {
                    Grid::Values(values) if !values.is_empty() => {
                        Grid::Values(vec![values[values.len() / 2]])
                    }
                    other => other.clone(),
                },
                ..spec.clone()
            });
        }
    }
    let mut variables: Vec<String> = law.variables.clone();
    variables.extend((1..=tracks).map(|t| format!("track__{t}")));
    let variable_refs: Vec<&str> = variables.iter().map(String::as_str).collect();
    let formula = format!("{definitions}{}", law.formula);
    let joint = Law::with_specs(
        &format!("{} (joint over tracks)", law.label()),
        &formula,
        law.citation.as_deref().unwrap_or(""),
        &variable_refs,
        params,
    )?;
    Ok((joint, JointLayout { index }))
}

/// All tracks' rows in one dataset with indicator columns, and each row's track.
pub(super) fn joint_data(tracks: &[Track]) -> (FitData, Vec<usize>) {
    let variables = tracks[0].data.variables.len();
    let mut data = FitData {
        variables: vec![Vec::new(); variables + tracks.len()],
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    let mut weights = Vec::new();
    let mut ids = Vec::new();
    for (t, track) in tracks.iter().enumerate() {
        let rows = track.data.target.len();
        for (v, column) in track.data.variables.iter().enumerate() {
            data.variables[v].extend_from_slice(column);
        }
        for u in 0..tracks.len() {
            let indicator = if u == t { 1.0 } else { 0.0 };
            data.variables[variables + u].extend(std::iter::repeat_n(indicator, rows));
        }
        data.target.extend_from_slice(&track.data.target);
        match &track.data.weights {
            Some(w) => weights.extend_from_slice(w),
            None => weights.extend(std::iter::repeat_n(1.0, rows)),
        }
        ids.extend(std::iter::repeat_n(t, rows));
    }
    if tracks.iter().any(|t| t.data.weights.is_some()) {
        data.weights = Some(weights);
    }
    (data, ids)
}

pub(super) fn fit_jointly(law: &Law, tracks: &[Track], settings: &TrackSettings) -> Result<Fitted> {
    // Separate fits only seed the joint search: a track too small to fit alone (the reason
    // to share parameters) starts from the others' mean instead.
    let separate: Vec<Option<Vec<f64>>> = tracks
        .iter()
        .map(|track| {
            fit(law, &track.data, &settings.fit)
                .ok()
                .map(|r| r.param_values())
        })
        .collect();
    let (joint, layout) = joint_law(law, &settings.shared, tracks.len())?;
    let joint_settings = per_track_settings(&settings.fit, &settings.shared, tracks.len());
    let (data, ids) = joint_data(tracks);
    let warm = joint_warm_starts(
        law,
        &layout,
        &separate,
        &settings.shared,
        joint.params.len(),
    );
    let words = JointWords::new(law, &settings.shared, tracks);
    let mut result = FitRecord::from(
        fit_with_starts(&joint, &data, &joint_settings, &warm).map_err(|e| words.error(e))?,
    );
    if let Some(c) = &settings.calibration {
        let scale: Vec<f64> = c.scales.iter().flatten().copied().collect();
        calibrated(
            &mut result,
            &joint,
            &data,
            &c.by,
            &scale,
            settings,
            &joint_settings,
        )
        .map_err(|e| words.error(e))?;
    }
    let joint_fit = JointFit {
        law: &joint,
        data: &data,
        settings: &joint_settings,
        layout: &layout,
        words: &words,
        tracks: tracks.len(),
    };
    let draws = joint_fit.draws(&mut result, ids, settings)?;
    joint_fitted(law, tracks, settings, &layout, &words, result, draws, joint)
}

/// The joint fit's pieces that its bootstrap needs.
pub(super) struct JointFit<'a> {
    pub(super) law: &'a Law,
    pub(super) data: &'a FitData,
    pub(super) settings: &'a FitSettings,
    pub(super) layout: &'a JointLayout,
    pub(super) words: &'a JointWords,
    pub(super) tracks: usize,
}

impl JointFit<'_> {
    /// Bootstrap replicates of the joint fit, rows resampled within each track (its `ids`),
    /// split into every track's parameters; none without `settings.bootstrap`.
    pub(super) fn draws(
        &self,
        result: &mut FitRecord,
        ids: Vec<usize>,
        settings: &TrackSettings,
    ) -> Result<Vec<Vec<Vec<f64>>>> {
        if settings.bootstrap == 0 {
            return Ok(Vec::new());
        }
        let options = BootstrapOptions {
            replicates: settings.bootstrap,
            level: settings.level,
            seed: settings.seed,
            resampling: Resampling::Strata {
                column: "track".into(),
                ids,
            },
        };
        let summary = bootstrap(
            self.law,
            self.data,
            self.settings,
            result,
            &options,
            &|_| {},
        )
        .map_err(|e| self.words.error(e))?;
        let draws = summary
            .draws
            .iter()
            .map(|d| {
                (0..self.tracks)
                    .map(|t| self.layout.track_params(d, t))
                    .collect()
            })
            .collect();
        attach(result, summary);
        Ok(draws)
    }
}

/// The joint fit read back per track: each track's parameters, standard errors, share of the
/// objective and warnings.
#[allow(clippy::too_many_arguments)]
pub(super) fn joint_fitted(
    law: &Law,
    tracks: &[Track],
    settings: &TrackSettings,
    layout: &JointLayout,
    words: &JointWords,
    result: FitRecord,
    draws: Vec<Vec<Vec<f64>>>,
    joint: Law,
) -> Result<Fitted> {
    let joint_values = result.param_values();
    let params: Vec<Vec<f64>> = (0..tracks.len())
        .map(|t| layout.track_params(&joint_values, t))
        .collect();
    let stderr = (0..tracks.len())
        .map(|t| {
            layout.index[t]
                .iter()
                .map(|&i| result.params[i].1.stderr)
                .collect()
        })
        .collect();
    let objective = tracks
        .iter()
        .zip(&params)
        .map(|(track, p)| track_objective(law, track, p, &settings.fit))
        .collect::<Result<Vec<f64>>>()?;
    Ok(Fitted {
        params,
        stderr,
        objective,
        converged: vec![result.converged; tracks.len()],
        warnings: (0..tracks.len())
            .map(|t| words.warnings(&super::fits::neutral_warnings(&result), t))
            .collect(),
        draws,
        predictor: Predictor::Joint {
            result: Box::new(result),
            law: Box::new(joint),
            tracks: tracks.len(),
        },
    })
}

/// The joint law's internal names in the user's words: the copy `P__t` of an unshared
/// parameter is "P (track 'name')" and the indicator `track__t` is "the indicator of track
/// 'name'", so that no message of a joint fit shows a name the user never wrote.
pub(super) struct JointWords {
    pub(super) names: BTreeMap<String, String>,
    /// `owner[name]`: the track an internal name belongs to.
    pub(super) owner: BTreeMap<String, usize>,
    pub(super) indicators: Vec<String>,
}

impl JointWords {
    pub(super) fn new(law: &Law, shared: &[String], tracks: &[Track]) -> JointWords {
        let mut names = BTreeMap::new();
        let mut owner = BTreeMap::new();
        let mut indicators = Vec::new();
        for (t, track) in tracks.iter().enumerate() {
            let indicator = format!("track__{}", t + 1);
            names.insert(
                indicator.clone(),
                format!("the indicator of track '{}'", track.label),
            );
            owner.insert(indicator.clone(), t);
            indicators.push(indicator);
            for spec in law.params.iter().filter(|p| !shared.contains(&p.name)) {
                let copy = format!("{}__{}", spec.name, t + 1);
                names.insert(
                    copy.clone(),
                    format!("{} (track '{}')", spec.name, track.label),
                );
                owner.insert(copy, t);
            }
        }
        JointWords {
            names,
            owner,
            indicators,
        }
    }

    /// The identifiers (letters, digits, `_`) of a text, with their byte ranges.
    pub(super) fn identifiers(text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            let word = c.is_alphanumeric() || c == '_';
            match (word, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, text.len()));
        }
        out
    }

    pub(super) fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (s, e) in Self::identifiers(text) {
            out.push_str(&text[last..s]);
            out.push_str(
                self.names
                    .get(&text[s..e])
                    .map_or(&text[s..e], String::as_str),
            );
            last = e;
        }
        out.push_str(&text[last..]);
        out
    }

    pub(super) fn error(&self, error: Error) -> Error {
        match error {
            Error::Fit { message } => Error::fit(message.map_literals(|text| self.text(text))),
            Error::Settings { key, message } => Error::Settings {
                key,
                message: message.map_literals(|text| self.text(text)),
            },
            other => other,
        }
    }

    /// The joint fit's warnings that concern track t (those naming only other tracks' copies
    /// are theirs), in the user's words. The indicators' collinearity is left out: they sum
    /// to one on every row by construction, which says nothing about the data.
    pub(super) fn warnings(&self, warnings: &[String], t: usize) -> Vec<String> {
        warnings
            .iter()
            .filter(|w| {
                let owners: Vec<usize> = Self::identifiers(w)
                    .into_iter()
                    .filter_map(|(s, e)| self.owner.get(&w[s..e]).copied())
                    .collect();
                let indicators = Self::identifiers(w)
                    .into_iter()
                    .filter(|(s, e)| self.indicators.iter().any(|i| *i == w[*s..*e]))
                    .count();
                indicators < 2 && (owners.is_empty() || owners.contains(&t))
            })
            .map(|w| self.text(w))
            .collect()
    }
}

/// Joint starts from the separate fits: every track at its own optimum, the shared
/// parameters at each track's value in turn and at their mean.
pub(super) fn joint_warm_starts(
    law: &Law,
    layout: &JointLayout,
    separate: &[Option<Vec<f64>>],
    shared: &[String],
    size: usize,
) -> Vec<Vec<f64>> {
    let fitted: Vec<&Vec<f64>> = separate.iter().flatten().collect();
    if fitted.is_empty() {
        return Vec::new();
    }
    let mean: Vec<f64> = (0..law.params.len())
        .map(|p| fitted.iter().map(|s| s[p]).sum::<f64>() / fitted.len() as f64)
        .collect();
    let separate: Vec<&Vec<f64>> = separate
        .iter()
        .map(|s| s.as_ref().unwrap_or(&mean))
        .collect();
    let shared_from = |source: &dyn Fn(usize) -> f64| {
        let mut start = vec![0.0; size];
        for (t, own) in separate.iter().enumerate() {
            for (p, spec) in law.params.iter().enumerate() {
                start[layout.index[t][p]] = if shared.contains(&spec.name) {
                    source(p)
                } else {
                    own[p]
                };
            }
        }
        start
    };
    let mut starts = vec![shared_from(&|p| mean[p])];
    for own in fitted {
        starts.push(shared_from(&|p| own[p]));
    }
    starts
}

/// The fit settings of the joint law: a setting (fixed value, bounds, start values) of a
/// parameter that is not shared applies to each track's copy of it.
pub(super) fn per_track_settings(
    settings: &FitSettings,
    shared: &[String],
    tracks: usize,
) -> FitSettings {
    pub(super) fn spread<T: Clone>(
        map: &BTreeMap<String, T>,
        shared: &[String],
        tracks: usize,
    ) -> BTreeMap<String, T> {
        let mut out = BTreeMap::new();
        for (name, value) in map {
            if shared.contains(name) {
                out.insert(name.clone(), value.clone());
            } else {
                for t in 1..=tracks {
                    out.insert(format!("{name}__{t}"), value.clone());
                }
            }
        }
        out
    }
    FitSettings {
        fixed: spread(&settings.fixed, shared, tracks),
        bounds: spread(&settings.bounds, shared, tracks),
        grids: spread(&settings.grids, shared, tracks),
        ..settings.clone()
    }
}

/// The objective of one track's rows at its parameters.
pub(super) fn track_objective(
    law: &Law,
    track: &Track,
    params: &[f64],
    settings: &FitSettings,
) -> Result<f64> {
    let problem = crate::fit::problem_for(law, &track.data, settings)?;
    let mut scratch = problem.tape().scratch();
    Ok(problem.objective_natural(params, &mut scratch))
}
