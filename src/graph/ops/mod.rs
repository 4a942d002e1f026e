//! Operations: one file per op (or per family sharing one formula), each with attribute
//! parsing from IR, shape inference and execution.

pub mod activation;
pub mod auto_broadcast;
pub mod binary;
pub mod broadcast;
pub mod clamp;
pub mod comparison;
pub mod concat;
pub mod constant;
pub mod convert;
pub mod cumsum;
pub mod gather;
pub mod gather_elements;
pub mod gather_nd;
pub mod gru_cell;
pub mod identity;
pub mod if_op;
pub mod logical;
pub mod loop_op;
pub mod lstm_cell;
pub mod matmul;
pub mod mvn;
pub mod non_zero;
pub mod numeric;
pub mod one_hot;
pub mod pad;
pub mod parameter;
pub mod range;
pub mod reduce;
pub mod reshape;
pub mod result;
pub mod reverse_sequence;
pub mod rnn_cell;
pub mod rnn_common;
pub mod rnn_sequence;
pub mod scatter_common;
pub mod scatter_elements_update;
pub mod scatter_nd_update;
pub mod scatter_update;
pub mod select;
pub mod shape_of;
pub mod slice;
pub mod softmax;
pub mod split;
pub mod squeeze;
pub mod static_iteration;
pub mod strided_slice;
pub mod subgraph;
pub mod tensor_iterator;
pub mod tile;
pub mod topk;
pub mod transpose;
pub mod unary;
pub mod unsqueeze;

use std::any::Any;
use std::fmt::Debug;
use std::ops::RangeInclusive;

use super::ir::IrLayer;
use super::limits::Budget;
use super::model::Model;
use super::shape::PartialShape;
use super::tensor::{ElementType, Tensor};
use super::weights::Weights;
use crate::error::{Error, Result};

/// What shape inference knows about one input: type, shape and (when constant) the value.
#[derive(Clone, Debug)]
pub struct ValueInfo<'a> {
    /// The element type.
    pub element_type: ElementType,
    /// The (partial) shape.
    pub shape: PartialShape,
    /// The value when it is known at load time (constants and what folds from them).
    pub value: Option<&'a Tensor>,
}

/// Element type and shape of one op output, as inferred.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputInfo {
    /// The element type.
    pub element_type: ElementType,
    /// The (partial) shape.
    pub shape: PartialShape,
}

impl OutputInfo {
    /// An output info.
    pub fn new(element_type: ElementType, shape: PartialShape) -> Self {
        Self {
            element_type,
            shape,
        }
    }
}

/// An operation of the graph.
pub trait Op: Debug + Send + Sync + Any {
    /// The op type as spelled in IR (`Gather`, `TensorIterator`, …).
    fn type_name(&self) -> &'static str;

    /// Output types and shapes from the inputs'. Called at load time; when every input has a
    /// known value the builder executes the op instead (constant folding).
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>>;

    /// Computes the outputs.
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>>;

    /// Computes the outputs within an execution's budget: what the executor calls. Ops that
    /// run bodies (TensorIterator, Loop, If) pass the budget on; their [`Op::execute`] runs
    /// within the default [`Limits`](crate::graph::Limits).
    fn execute_within(&self, inputs: &[&Tensor], _budget: &Budget) -> Result<Vec<Tensor>> {
        self.execute(inputs)
    }

    /// Computes the outputs into `outputs`, tensors of the element types and shapes a
    /// previous execution on inputs of these shapes gave (a body's buffers, reused at every
    /// iteration); false, leaving them unspecified, when the op has no such path for these
    /// inputs (the caller then runs [`Op::execute_within`]). A reshape op
    /// ([`Op::reshape_target`]) copies input 0's elements into its output.
    fn execute_into(&self, inputs: &[&Tensor], outputs: &mut [Tensor]) -> Result<bool> {
        let Some(target) = self.reshape_target(inputs) else {
            return Ok(false);
        };
        let target = target?;
        Ok(match outputs {
            [out] => out.shape() == target && out.copy_reshaped(inputs[0]),
            _ => false,
        })
    }

    /// For an op whose one output is input 0's elements, in row-major order, under another
    /// shape (Reshape, Squeeze, Unsqueeze): that shape for these inputs. The executor then
    /// moves an input no other node reads rather than copying it.
    fn reshape_target(&self, _inputs: &[&Tensor]) -> Option<Result<Vec<usize>>> {
        None
    }

    /// `self` as `Any`, so passes can downcast to the concrete op.
    fn as_any(&self) -> &dyn Any;

    /// The value of a constant op (`Const`), served without copying.
    fn constant(&self) -> Option<&Tensor> {
        None
    }

    /// False for ops that must not be evaluated at load time (Parameter).
    fn foldable(&self) -> bool {
        true
    }

    /// The sub-graphs the op runs (TensorIterator and Loop bodies, If branches).
    fn bodies(&self) -> Vec<&Model> {
        Vec::new()
    }

    /// The sub-graphs the op runs, for passes that rewrite them.
    fn bodies_mut(&mut self) -> Vec<&mut Model> {
        Vec::new()
    }
}

/// What op constructors need besides the layer: the weights, for `Const` and bodies.
#[derive(Clone, Copy, Debug)]
pub struct BuildContext<'a> {
    /// The `.bin`.
    pub weights: &'a Weights<'a>,
}

/// Creates the op for an IR layer, checking its attributes and input count.
pub fn create(layer: &IrLayer, ctx: &BuildContext) -> Result<Box<dyn Op>> {
    let op: Box<dyn Op> = match layer.type_name.as_str() {
        "Parameter" => Box::new(parameter::Parameter::from_ir(layer)?),
        "Result" => Box::new(result::ResultOp::from_ir(layer)?),
        "Const" | "Constant" => Box::new(constant::Constant::from_ir(layer, ctx)?),
        "Gather" => Box::new(gather::Gather::from_ir(layer)?),
        "Broadcast" => Box::new(broadcast::Broadcast::from_ir(layer)?),
        "If" => Box::new(if_op::If::from_ir(layer, ctx)?),
        "TensorIterator" => Box::new(tensor_iterator::TensorIterator::from_ir(layer, ctx)?),
        "Loop" => Box::new(loop_op::Loop::from_ir(layer, ctx)?),
        "LSTMCell" => Box::new(lstm_cell::LstmCell::from_ir(layer)?),
        "GRUCell" => Box::new(gru_cell::GruCell::from_ir(layer)?),
        "RNNCell" => Box::new(rnn_cell::RnnCell::from_ir(layer)?),
        "LSTMSequence" | "GRUSequence" | "RNNSequence" => {
            Box::new(rnn_sequence::RnnSequence::from_ir(layer)?)
        }
        "Reshape" => Box::new(reshape::Reshape::from_ir(layer)?),
        "Squeeze" => Box::new(squeeze::Squeeze::from_ir(layer)?),
        "Unsqueeze" => Box::new(unsqueeze::Unsqueeze::from_ir(layer)?),
        "Concat" => Box::new(concat::Concat::from_ir(layer)?),
        t if binary::BinaryKind::parse(t).is_some() => Box::new(binary::Binary::from_ir(layer)?),
        t if comparison::ComparisonKind::parse(t).is_some() => {
            Box::new(comparison::Comparison::from_ir(layer)?)
        }
        "LogicalAnd" | "LogicalOr" | "LogicalXor" | "LogicalNot" => {
            Box::new(logical::Logical::from_ir(layer)?)
        }
        t if unary::TYPE_NAMES.contains(&t) => Box::new(unary::Unary::from_ir(layer)?),
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogicalAnd" | "ReduceLogicalOr" => {
            Box::new(reduce::Reduce::from_ir(layer)?)
        }
        "Select" => Box::new(select::Select::from_ir(layer)?),
        "Clamp" => Box::new(clamp::Clamp::from_ir(layer)?),
        "SoftMax" | "Softmax" | "LogSoftmax" => Box::new(softmax::Softmax::from_ir(layer)?),
        "Transpose" => Box::new(transpose::Transpose::from_ir(layer)?),
        "Split" | "VariadicSplit" => Box::new(split::Split::from_ir(layer)?),
        "Slice" => Box::new(slice::Slice::from_ir(layer)?),
        "StridedSlice" => Box::new(strided_slice::StridedSlice::from_ir(layer)?),
        "Identity" => Box::new(identity::Identity::from_ir(layer)?),
        "ReverseSequence" => Box::new(reverse_sequence::ReverseSequence::from_ir(layer)?),
        "Range" => Box::new(range::Range::from_ir(layer)?),
        "Tile" => Box::new(tile::Tile::from_ir(layer)?),
        "Sigmoid" | "Tanh" | "Relu" | "ReLU" => Box::new(activation::Activation::from_ir(layer)?),
        "MatMul" => Box::new(matmul::MatMul::from_ir(layer)?),
        "Convert" | "ConvertLike" => Box::new(convert::Convert::from_ir(layer)?),
        "TopK" => Box::new(topk::TopK::from_ir(layer)?),
        "OneHot" => Box::new(one_hot::OneHot::from_ir(layer)?),
        "MVN" => Box::new(mvn::Mvn::from_ir(layer)?),
        "Pad" => Box::new(pad::Pad::from_ir(layer)?),
        "GatherElements" => Box::new(gather_elements::GatherElements::from_ir(layer)?),
        "GatherND" => Box::new(gather_nd::GatherNd::from_ir(layer)?),
        "ScatterElementsUpdate" => Box::new(
            scatter_elements_update::ScatterElementsUpdate::from_ir(layer)?,
        ),
        "CumSum" => Box::new(cumsum::CumSum::from_ir(layer)?),
        "NonZero" => Box::new(non_zero::NonZero::from_ir(layer)?),
        "ScatterUpdate" => Box::new(scatter_update::ScatterUpdate::from_ir(layer)?),
        "ScatterNDUpdate" => Box::new(scatter_nd_update::ScatterNdUpdate::from_ir(layer)?),
        "ShapeOf" => Box::new(shape_of::ShapeOf::from_ir(layer)?),
        other => {
            return Err(Error::Unimplemented(format!(
                "IR: {layer}: unknown op type '{other}'{} (supported: {})",
                if layer.version.is_empty() {
                    String::new()
                } else {
                    format!(" of {}", layer.version)
                },
                SUPPORTED.concat().join(", ")
            )))
        }
    };
    Ok(op)
}

/// The op types [`create`] knows, in groups (the unary family lists its own).
pub const SUPPORTED: &[&[&str]] = &[
    &[
        "Parameter",
        "Result",
        "Const",
        "Gather",
        "Broadcast",
        "If",
        "TensorIterator",
        "Loop",
        "LSTMCell",
        "GRUCell",
        "RNNCell",
        "LSTMSequence",
        "GRUSequence",
        "RNNSequence",
        "Reshape",
        "Squeeze",
        "Unsqueeze",
        "Concat",
        "Add",
        "Subtract",
        "Multiply",
        "Divide",
        "Sigmoid",
        "Tanh",
        "Relu",
        "MatMul",
        "Convert",
        "ShapeOf",
        "Maximum",
        "Minimum",
        "Power",
        "Mod",
        "FloorMod",
        "SquaredDifference",
        "Equal",
        "NotEqual",
        "Greater",
        "GreaterEqual",
        "Less",
        "LessEqual",
        "LogicalAnd",
        "LogicalOr",
        "LogicalXor",
        "LogicalNot",
        "Select",
        "Clamp",
    ],
    &unary::TYPE_NAMES,
    &[
        "ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogicalAnd, ReduceLogicalOr",
        "Softmax",
        "LogSoftmax",
        "Transpose",
        "Split",
        "VariadicSplit",
        "Slice",
        "StridedSlice",
        "Identity",
        "ReverseSequence",
        "Range",
        "Tile",
        "ConvertLike",
        "TopK",
        "OneHot",
        "MVN",
        "Pad",
        "GatherElements",
        "GatherND",
        "ScatterElementsUpdate",
        "CumSum",
        "NonZero",
        "ScatterUpdate",
        "ScatterNDUpdate",
    ],
];

/// Checks that the layer has a number of input ports within `range`.
pub fn expect_inputs(layer: &IrLayer, range: RangeInclusive<usize>) -> Result<()> {
    let n = layer.inputs.len();
    if range.contains(&n) {
        return Ok(());
    }
    let want = if range.start() == range.end() {
        format!("{}", range.start())
    } else {
        format!("{} to {}", range.start(), range.end())
    };
    Err(layer.err(format!("has {n} input ports, expected {want}")))
}

/// The op version number from `opsetN` (0 when absent or not of that form).
pub fn opset_number(layer: &IrLayer) -> u32 {
    layer
        .version
        .strip_prefix("opset")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Checks the input count an op receives at execution (a builder bug or a pass bug otherwise).
pub fn check_arity(op: &str, inputs: &[&Tensor], range: RangeInclusive<usize>) -> Result<()> {
    if range.contains(&inputs.len()) {
        return Ok(());
    }
    let expected = if range.start() == range.end() {
        range.start().to_string()
    } else {
        format!("{} to {}", range.start(), range.end())
    };
    Err(Error::InvalidArguments(format!(
        "{op}: got {} inputs, expected {expected}",
        inputs.len()
    )))
}

/// An `InvalidArguments` error with a formatted message.
pub fn invalid(msg: impl Into<String>) -> Error {
    Error::InvalidArguments(msg.into())
}

/// `invalid_arguments` unless input `what` is of an integer type (indices, axes, bounds).
pub fn require_integer(what: &str, v: &ValueInfo) -> Result<()> {
    if v.element_type.is_integer() {
        Ok(())
    } else {
        Err(invalid(format!(
            "{what} must be integer, got {}",
            v.element_type
        )))
    }
}

/// The integer values of a constant input at inference time, or `None` when not constant.
pub fn const_i64s(info: &ValueInfo, what: &str) -> Result<Option<Vec<i64>>> {
    info.value.map(|v| v.to_i64_vec(what)).transpose()
}

/// An optional comma-separated integer list attribute (empty when absent).
pub fn attr_i64_list(layer: &IrLayer, name: &str) -> Result<Vec<i64>> {
    layer
        .attr_str_list(name)
        .iter()
        .map(|s| {
            s.parse()
                .map_err(|_| layer.err(format!("attribute {name}: '{s}' is not an integer")))
        })
        .collect()
}
