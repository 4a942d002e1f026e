//! The enumerations of oneDNN's RNN API as Rust enums, with oneDNN's numeric values.
//!
//! Values arriving from C are plain integers; [`CEnum::from_raw`] turns them into these enums and
//! rejects unknown values, so no invalid enum value ever exists on the Rust side.

use crate::error::{Error, Result};

/// Conversion between a Rust enum and oneDNN's integer value and name.
pub trait CEnum: Sized + Copy + 'static {
    /// All variants, in declaration order.
    const ALL: &'static [Self];
    /// What the enum is, for error messages ("data type", "direction", ...).
    const WHAT: &'static str;
    /// oneDNN's integer value.
    fn raw(self) -> i32;
    /// oneDNN's short name (what `dnnl_*2str` prints).
    fn name(self) -> &'static str;
    /// The variant with this value, if any.
    fn from_raw(v: i32) -> Option<Self> {
        Self::ALL.iter().copied().find(|e| e.raw() == v)
    }
    /// The variant with this value, or `invalid_arguments` naming the bad value.
    fn parse(v: i32) -> Result<Self> {
        Self::from_raw(v)
            .ok_or_else(|| Error::InvalidArguments(format!("unknown {} value {v}", Self::WHAT)))
    }
}

macro_rules! c_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $var:ident = $val:literal => $str:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $var,)* }
        impl CEnum for $name {
            const ALL: &'static [Self] = &[$($name::$var,)*];
            const WHAT: &'static str = $what;
            fn raw(self) -> i32 { match self { $($name::$var => $val,)* } }
            fn name(self) -> &'static str { match self { $($name::$var => $str,)* } }
        }
        /// oneDNN's name, as in messages.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

c_enum! {
    /// Element data type (`dnnl_data_type_t`).
    DataType, "data type" {
        /// No type (zero memory descriptors).
        Undef = 0 => "undef",
        /// IEEE half precision.
        F16 = 1 => "f16",
        /// bfloat16.
        Bf16 = 2 => "bf16",
        /// IEEE single precision.
        F32 = 3 => "f32",
        /// 32-bit signed integer.
        S32 = 4 => "s32",
        /// 8-bit signed integer.
        S8 = 5 => "s8",
        /// 8-bit unsigned integer.
        U8 = 6 => "u8",
    }
}

impl DataType {
    /// Size of one element in bytes (0 for `Undef`).
    pub fn size(self) -> usize {
        match self {
            DataType::Undef => 0,
            DataType::F16 | DataType::Bf16 => 2,
            DataType::F32 | DataType::S32 => 4,
            DataType::S8 | DataType::U8 => 1,
        }
    }
}

c_enum! {
    /// Propagation kind (`dnnl_prop_kind_t`).
    PropKind, "propagation kind" {
        /// Not set.
        Undef = 0 => "undef",
        /// Forward pass that keeps a workspace for backward.
        ForwardTraining = 64 => "forward_training",
        /// Forward pass for inference only.
        ForwardInference = 96 => "forward_inference",
        /// Backward pass (data and weights together for RNN).
        Backward = 128 => "backward",
        /// Backward with respect to data.
        BackwardData = 160 => "backward_data",
        /// Backward with respect to weights.
        BackwardWeights = 192 => "backward_weights",
        /// Backward with respect to bias.
        BackwardBias = 193 => "backward_bias",
    }
}

c_enum! {
    /// Recurrence direction (`dnnl_rnn_direction_t`).
    Direction, "rnn direction" {
        /// Not set.
        Undef = 0 => "undef",
        /// Time steps 0..T.
        Left2Right = 1 => "unidirectional_left2right",
        /// Time steps T..0.
        Right2Left = 2 => "unidirectional_right2left",
        /// Both, outputs concatenated along channels.
        BidirectionalConcat = 3 => "bidirectional_concat",
        /// Both, outputs summed.
        BidirectionalSum = 4 => "bidirectional_sum",
    }
}

impl Direction {
    /// Number of directions (D): 1 or 2.
    pub fn num_directions(self) -> usize {
        match self {
            Direction::BidirectionalConcat | Direction::BidirectionalSum => 2,
            _ => 1,
        }
    }
}

c_enum! {
    /// Algorithm kinds used by RNN: cell kinds and vanilla RNN activations (`dnnl_alg_kind_t`).
    AlgKind, "algorithm kind" {
        /// Not set.
        Undef = 0 => "undef",
        /// Vanilla RNN cell.
        VanillaRnn = 0x1fff => "vanilla_rnn",
        /// LSTM cell.
        VanillaLstm = 0x2fff => "vanilla_lstm",
        /// GRU cell.
        VanillaGru = 0x3fff => "vanilla_gru",
        /// Linear-before-reset GRU cell.
        LbrGru = 0x4fff => "lbr_gru",
        /// GRU with attentional update gate.
        VanillaAugru = 0x5fff => "vanilla_augru",
        /// Linear-before-reset AUGRU cell.
        LbrAugru = 0x6fff => "lbr_augru",
        /// ReLU activation (vanilla RNN).
        EltwiseRelu = 0x20 => "eltwise_relu",
        /// tanh activation (vanilla RNN).
        EltwiseTanh = 0x21 => "eltwise_tanh",
        /// Logistic (sigmoid) activation (vanilla RNN).
        EltwiseLogistic = 0x29 => "eltwise_logistic",
    }
}

c_enum! {
    /// Primitive kind (`dnnl_primitive_kind_t`), the subset this library implements.
    PrimitiveKind, "primitive kind" {
        /// Not set.
        Undef = 0 => "undef",
        /// Reorder (layout/type conversion).
        Reorder = 1 => "reorder",
        /// Recurrent neural network.
        Rnn = 11 => "rnn",
    }
}

c_enum! {
    /// Engine kind (`dnnl_engine_kind_t`).
    EngineKind, "engine kind" {
        /// Any engine.
        Any = 0 => "any",
        /// CPU.
        Cpu = 1 => "cpu",
        /// GPU (never available here).
        Gpu = 2 => "gpu",
    }
}

c_enum! {
    /// Format kind (`dnnl_format_kind_t`) as reported to users.
    FormatKind, "format kind" {
        /// Zero memory descriptor.
        Undef = 0 => "undef",
        /// Let the primitive choose.
        Any = 1 => "any",
        /// Strided (plain) layout.
        Blocked = 2 => "blocked",
        /// Implementation-defined layout (our packed weights).
        Opaque = 3 => "opaque",
        HostScalar = 5 => "host_scalar",
    }
}

c_enum! {
    /// Scratchpad ownership (`dnnl_scratchpad_mode_t`).
    #[derive(Default)]
    ScratchpadMode, "scratchpad mode" {
        /// The library allocates scratch memory per execution.
        #[default]
        Library = 0 => "library",
        /// The user passes `DNNL_ARG_SCRATCHPAD`.
        User = 1 => "user",
    }
}

/// The library-wide default of [`FpmathMode`] (`dnnl_set_default_fpmath_mode`), from the
/// environment when first read unless set before.
fn default_fpmath() -> &'static std::sync::atomic::AtomicI32 {
    static DEFAULT: std::sync::OnceLock<std::sync::atomic::AtomicI32> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(|| {
        use crate::environment::{named, onednn};
        let names: Vec<_> = FpmathMode::ALL.iter().map(|m| (m.name(), *m)).collect();
        let mode = named(onednn("DEFAULT_FPMATH_MODE"), &names).unwrap_or(FpmathMode::Strict);
        std::sync::atomic::AtomicI32::new(mode.raw())
    })
}

impl FpmathMode {
    /// Sets the mode new attributes start with.
    pub fn set_default(mode: Self) {
        default_fpmath().store(mode.raw(), std::sync::atomic::Ordering::Relaxed);
    }
}

/// The mode set by [`FpmathMode::set_default`], else `ONEDNN_DEFAULT_FPMATH_MODE`'s
/// (`STRICT`, `BF16`, `F16`, `ANY` or `TF32`, any case), else strict, as in oneDNN.
impl Default for FpmathMode {
    fn default() -> Self {
        Self::from_raw(default_fpmath().load(std::sync::atomic::Ordering::Relaxed))
            .unwrap_or(Self::Strict)
    }
}

c_enum! {
    /// Floating-point math mode (`dnnl_fpmath_mode_t`).
    FpmathMode, "fpmath mode" {
        /// Strict f32 math.
        Strict = 0 => "strict",
        /// Implicit down-conversion to bf16 allowed.
        Bf16 = 1 => "bf16",
        /// Implicit down-conversion to f16 allowed.
        F16 = 2 => "f16",
        /// Any implicit down-conversion allowed.
        Any = 3 => "any",
        /// Implicit down-conversion to tf32 allowed.
        Tf32 = 4 => "tf32",
    }
}

c_enum! {
    /// RNN flags (`dnnl_rnn_flags_t`).
    RnnFlags, "rnn flags" {
        /// No flag.
        Undef = 0 => "undef",
        /// Backward overwrites diff weights instead of accumulating.
        DiffWeightsOverwrite = 1 => "rnn_flags_diff_weights_overwrite",
    }
}
