// ptosim C++ front end: JSON descriptions of operands (tiles, global tensors, scalars, enums).
#pragma once

#include <typeinfo>

namespace ptosim {

template <typename T>
constexpr const char *dtype_name()
{
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>) return "float32";
    else if constexpr (std::is_same_v<U, double>) return "float64";
    else if constexpr (std::is_same_v<U, half>) return "half";
    else if constexpr (std::is_same_v<U, bfloat16_t>) return "bfloat16";
    else if constexpr (std::is_same_v<U, int8_t> || std::is_same_v<U, char>) return "int8";
    else if constexpr (std::is_same_v<U, uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<U, int16_t>) return "int16";
    else if constexpr (std::is_same_v<U, uint16_t>) return "uint16";
    else if constexpr (std::is_same_v<U, int32_t>) return "int32";
    else if constexpr (std::is_same_v<U, uint32_t>) return "uint32";
    else if constexpr (std::is_same_v<U, int64_t> || std::is_same_v<U, long long>) return "int64";
    else if constexpr (std::is_same_v<U, uint64_t> || std::is_same_v<U, unsigned long long>) return "uint64";
    else if constexpr (std::is_same_v<U, float8_e4m3_t>) return "float8_e4m3";
    else if constexpr (std::is_same_v<U, float8_e5m2_t>) return "float8_e5m2";
    else if constexpr (std::is_same_v<U, hifloat8_t>) return "hifloat8";
    else if constexpr (std::is_same_v<U, float8_e8m0_t>) return "float8_e8m0";
    else if constexpr (std::is_same_v<U, float4_e2m1x2_t>) return "float4_e2m1x2";
    else if constexpr (std::is_same_v<U, float4_e1m2x2_t>) return "float4_e1m2x2";
    else if constexpr (std::is_same_v<U, bool>) return "bool";
    else if constexpr (std::is_same_v<U, ::pto::int4b_t>) return "int4b_t";  // named in the refusal
    else return "unknown";
}

// the enumerator name of a value of an API enum (PTOSIM_ENUM in pto.hpp)
template <typename E>
std::string name(E v)
{
    return ptosim_enum_name(v);
}

// template arguments, as "key":"value" pairs
inline void targ(std::string &o, const char *key, const std::string &value)
{
    jkey(o, key);
    jstr(o, value);
}

// a tile's pad: the enumerator name, or "custom:<value>" with the custom pad's bit pattern read
// as the element type T (the low 32 / 16 / 8 bits), printed exactly
template <typename T>
std::string pad_name(pto::PadValue pv)
{
    if (!pto::isCustomPadValue(pv)) return name(pv);
    uint32_t bits = pto::getCustomPadBits(pv);
    double v = 0;
    if constexpr (std::is_same_v<T, float>) v = __builtin_bit_cast(float, bits);
    else if constexpr (std::is_same_v<T, half>) v = (double)__builtin_bit_cast(half, (uint16_t)bits);
    else if constexpr (std::is_same_v<T, bfloat16_t>) v = (float)__builtin_bit_cast(bfloat16_t, (uint16_t)bits);
    else if constexpr (std::is_integral_v<T> && sizeof(T) <= 4) v = (double)static_cast<T>(bits);
    else return name(pv);
    char buf[48];
    std::snprintf(buf, sizeof buf, "custom:%.17g", v);
    return buf;
}

template <typename TileT>
void describe_tile(std::string &o, const TileT &t)
{
    o += '{';
    jkey(o, "k"); jstr(o, "tile");
    jkey(o, "id"); juint(o, t.ptosim_id);
    jkey(o, "org"); juint(o, t.ptosim_origin);
    jkey(o, "loc"); jstr(o, name(TileT::Loc));
    jkey(o, "dt"); jstr(o, dtype_name<typename TileT::DType>());
    jkey(o, "r"); jint(o, TileT::Rows);
    jkey(o, "c"); jint(o, TileT::Cols);
    jkey(o, "bl"); jstr(o, name(TileT::BFractal));
    jkey(o, "svr"); jint(o, TileT::ValidRow);
    jkey(o, "svc"); jint(o, TileT::ValidCol);
    jkey(o, "vr"); jint(o, TileT::ValidRow > 0 ? TileT::ValidRow : t.RowMaskInternal);
    jkey(o, "vc"); jint(o, TileT::ValidCol > 0 ? TileT::ValidCol : t.ColMaskInternal);
    jkey(o, "sl"); jstr(o, name(TileT::SFractal));
    jkey(o, "fr"); jint(o, TileT::SFractalSize);
    jkey(o, "pad"); jstr(o, pad_name<typename TileT::DType>(TileT::PadVal));
    jkey(o, "cm"); jstr(o, name(TileT::Compact));
    jkey(o, "tf32"); jstr(o, t.ptosim_tf32 ? name(t.ptosim_tf32_mode) : "");
    jkey(o, "as"); o += t.ptosim_assigned ? "true" : "false";
    jkey(o, "addr"); juint(o, t.ptosim_assigned ? onchip_offset((uintptr_t)t.data_) : 0);
    o += '}';
}

template <typename G>
void describe_global(std::string &o, const G &g)
{
    o += '{';
    jkey(o, "k"); jstr(o, "gm");
    jkey(o, "dt"); jstr(o, dtype_name<typename G::RawDType>());
    jkey(o, "ptr"); juint(o, (unsigned long long)(uintptr_t)g.data_);
    jkey(o, "shape"); o += '[';
    for (int i = 0; i < 5; ++i) { if (i) o += ','; jint(o, g.shape_.shape[i]); }
    o += ']';
    jkey(o, "stride"); o += '[';
    for (int i = 0; i < 5; ++i) { if (i) o += ','; jint(o, g.stride_.stride[i]); }
    o += ']';
    jkey(o, "lay"); jstr(o, name(G::layout));
    o += '}';
}

template <typename E, typename = void>
struct has_enum_name : std::false_type {};
template <typename E>
struct has_enum_name<E, std::void_t<decltype(ptosim_enum_name(std::declval<E>()))>> : std::true_type {};

template <typename T>
void describe(std::string &o, const T &v)
{
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (pto::is_tile<U>::value) {
        describe_tile(o, v);
    } else if constexpr (pto::is_global<U>::value) {
        describe_global(o, v);
    } else if constexpr (pto::is_event<U>::value) {
        o += "{\"k\":\"event\"}";
    } else if constexpr (std::is_enum_v<U> && has_enum_name<U>::value) {
        o += "{\"k\":\"enum\",\"type\":";
        jstr(o, ptosim_enum_type(v));
        o += ",\"name\":";
        jstr(o, ptosim_enum_name(v));
        o += ",\"v\":";
        jint(o, (long long)v);
        o += '}';
    } else if constexpr (std::is_enum_v<U>) {
        o += "{\"k\":\"enum\",\"type\":\"\",\"v\":";
        jint(o, (long long)v);
        o += '}';
    } else if constexpr (std::is_same_v<U, bool>) {
        o += v ? "{\"k\":\"bool\",\"v\":true}" : "{\"k\":\"bool\",\"v\":false}";
    } else if constexpr (std::is_integral_v<U>) {
        o += "{\"k\":\"scalar\",\"dt\":";
        jstr(o, dtype_name<U>());
        o += ",\"v\":";
        if constexpr (std::is_signed_v<U>) jint(o, (long long)v); else juint(o, (unsigned long long)v);
        o += '}';
    } else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, half> || std::is_same_v<U, bfloat16_t>) {
        o += "{\"k\":\"scalar\",\"dt\":";
        jstr(o, dtype_name<U>());
        o += ",\"v\":";
        if constexpr (std::is_floating_point_v<U>) jnum(o, (double)v); else jnum(o, (double)(float)v);
        o += '}';
    } else if constexpr (std::is_pointer_v<U>) {
        o += "{\"k\":\"ptr\",\"v\":";
        juint(o, (unsigned long long)(uintptr_t)v);
        o += '}';
    } else {
        o += "{\"k\":\"opaque\",\"type\":";
        jstr(o, typeid(U).name());
        o += '}';
    }
}

// Wait on the Event objects among an instruction's trailing arguments (TSYNC semantics).
template <typename T>
void wait_if_event(long long pc, T &v)
{
    if constexpr (pto::is_event<std::remove_cv_t<T>>::value) v.Wait(pc);
}
template <typename... A>
void wait_events(long long pc, A &...args)
{
    (wait_if_event(pc, args), ...);
}

// Record an instruction: `targs` are its template-argument fields, then its operands in order.
template <typename... A>
void record(const char *op, long long pc, const std::string &targs, const A &...args)
{
    std::string b;
    if (!targs.empty()) {
        b += "\"t\":{";
        b += targs;
        b += "},";
    }
    b += "\"a\":[";
    bool first = true;
    (
        [&] {
            if (!first) b += ',';
            first = false;
            describe(b, args);
        }(),
        ...);
    b += ']';
    send(op, pc, b);
}

// Scalar access to one element of a tile or global tensor (GetValue / SetValue): the Python side
// serves it from ptosim's simulation session; `value` points to the element written (SetValue).
template <typename Obj>
void scalar_access(const char *op, long long pc, const Obj &obj, size_t index, const void *value, void *out)
{
    std::string b = "\"a\":[";
    describe(b, obj);
    b += ",";
    describe(b, (unsigned long long)index);
    b += "]";
    if (value) {
        b += ",\"value\":";
        using D = typename Obj::DType;
        D v;
        std::memcpy(&v, value, sizeof(D));
        describe(b, v);
    }
    send(op, pc, b, out);
}
template <typename D, typename Obj>
D scalar_read(const char *op, long long pc, const Obj &obj, size_t index)
{
    uint64_t bits = 0;
    scalar_access(op, pc, obj, index, nullptr, &bits);
    D v;
    std::memcpy(&v, &bits, sizeof(D));
    return v;
}

} // namespace ptosim
