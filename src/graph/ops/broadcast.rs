//! Broadcast-1 (`numpy`, `explicit` with `axes_mapping`) and Broadcast-3 (also `bidirectional`):
//! replicates `data` to `target_shape`.

use std::any::Any;

use ndarray::IxDyn;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{broadcast_partial, broadcast_static, PartialShape};
use crate::graph::tensor::{reshape_array, Tensor};

/// How data axes map to output axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadcastMode {
    /// One-directional numpy rules: data right-aligned to `target_shape`.
    Numpy,
    /// `axes_mapping[i]` is the output axis of data axis `i`.
    Explicit,
    /// Broadcast-3: numpy rules both ways (the output may be larger than `target_shape`).
    Bidirectional,
}

/// Broadcast of data to a target shape.
#[derive(Clone, Debug)]
pub struct Broadcast {
    /// The mode.
    pub mode: BroadcastMode,
}

impl Broadcast {
    /// Reads `<data mode/>` (default numpy). Broadcast-1 spells explicit mode `none` when
    /// OpenVINO serializes it (its AutoBroadcastSpec), which is accepted too.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        let v1 = layer.version == "opset1";
        let mode = match layer.attr("mode").unwrap_or("numpy") {
            "numpy" => BroadcastMode::Numpy,
            "explicit" | "none" => BroadcastMode::Explicit,
            "bidirectional" if !v1 => BroadcastMode::Bidirectional,
            other => {
                return Err(layer.err(format!(
                    "mode=\"{other}\" is not supported by Broadcast-{} (numpy, explicit{})",
                    if v1 { 1 } else { 3 },
                    if v1 { "" } else { ", bidirectional" }
                )))
            }
        };
        // OpenVINO gives a numpy-mode Broadcast-1 a third (unused) axes_mapping input.
        expect_inputs(
            layer,
            if mode == BroadcastMode::Explicit {
                3..=3
            } else {
                2..=3
            },
        )?;
        Ok(Self { mode })
    }

    /// The data shape aligned to the output rank (1 where data has no axis) and the output
    /// shape, for a data shape, a target shape and (explicit mode) the axes mapping.
    pub fn plan(
        &self,
        data: &[usize],
        target: &[i64],
        mapping: Option<&[i64]>,
    ) -> Result<(Vec<usize>, Vec<usize>)> {
        let target: Vec<usize> = target
            .iter()
            .map(|&d| {
                usize::try_from(d)
                    .map_err(|_| invalid(format!("target_shape {target:?} has a negative dim")))
            })
            .collect::<Result<_>>()?;
        let out = match self.mode {
            BroadcastMode::Bidirectional => broadcast_static(data, &target)?,
            _ => target.clone(),
        };
        let mut aligned = vec![1usize; out.len()];
        match self.mode {
            BroadcastMode::Numpy | BroadcastMode::Bidirectional => {
                if data.len() > out.len() {
                    return Err(invalid(format!(
                        "data of rank {} cannot broadcast to target shape {target:?}",
                        data.len()
                    )));
                }
                aligned[out.len() - data.len()..].copy_from_slice(data);
            }
            BroadcastMode::Explicit => {
                let mapping = mapping.ok_or_else(|| invalid("explicit mode needs axes_mapping"))?;
                if mapping.len() != data.len() {
                    return Err(invalid(format!(
                        "axes_mapping {mapping:?} must have one entry per data axis ({})",
                        data.len()
                    )));
                }
                let mut prev = -1i64;
                for (i, &m) in mapping.iter().enumerate() {
                    if m <= prev || m >= out.len() as i64 {
                        return Err(invalid(format!(
                            "axes_mapping {mapping:?} must be increasing and within the target rank {}",
                            out.len()
                        )));
                    }
                    prev = m;
                    aligned[m as usize] = data[i];
                }
            }
        }
        for (i, (&a, &o)) in aligned.iter().zip(&out).enumerate() {
            if a != o && a != 1 {
                return Err(invalid(format!(
                    "data shape {data:?} does not broadcast to {out:?} (output axis {i}: {a} vs {o})"
                )));
            }
        }
        Ok((aligned, out))
    }
}

impl Op for Broadcast {
    fn type_name(&self) -> &'static str {
        "Broadcast"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        let Some(target) = const_i64s(&inputs[1], "target_shape")? else {
            let shape = match (self.mode, inputs[1].shape.to_static().as_deref()) {
                (BroadcastMode::Bidirectional, _) => PartialShape::dynamic(),
                (_, Some([n])) => PartialShape::dynamic_of_rank(*n),
                _ => PartialShape::dynamic(),
            };
            return Ok(vec![OutputInfo::new(et, shape)]);
        };
        let mapping = match inputs.get(2) {
            Some(m) => const_i64s(m, "axes_mapping")?,
            None => None,
        };
        let shape = match inputs[0].shape.to_static() {
            Some(d) if self.mode != BroadcastMode::Explicit || mapping.is_some() => {
                PartialShape::from_static(&self.plan(&d, &target, mapping.as_deref())?.1)
            }
            _ if self.mode == BroadcastMode::Bidirectional => {
                let t: Vec<usize> = target.iter().map(|&d| d.max(0) as usize).collect();
                broadcast_partial(&inputs[0].shape, &PartialShape::from_static(&t))?
            }
            _ => PartialShape::from_static(
                &target
                    .iter()
                    .map(|&d| d.max(0) as usize)
                    .collect::<Vec<_>>(),
            ),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Broadcast", inputs, 2..=3)?;
        let target = inputs[1].to_i64_vec("target_shape")?;
        let mapping = inputs
            .get(2)
            .map(|m| m.to_i64_vec("axes_mapping"))
            .transpose()?;
        let (aligned, out) = self.plan(inputs[0].shape(), &target, mapping.as_deref())?;
        let data = inputs[0];
        let result = crate::map_tensor!(data, a => {
            let r = reshape_array(a, &aligned);
            let v = r.broadcast(IxDyn(&out)).ok_or_else(|| invalid("broadcast failed"))?;
            v.as_standard_layout().into_owned()
        });
        Ok(vec![result])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
