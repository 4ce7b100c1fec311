/* Ludus Profiling: Tracy's C++ API (tracy/Tracy.hpp) onto Ludus. With this
 * directory first on the include path and TRACY_ENABLE defined, a program
 * instrumented for Tracy builds unchanged and records as any Ludus program
 * does; without TRACY_ENABLE every macro is empty (a lockable is the plain
 * type), as in Tracy's own header. docs/from-tracy.md says what maps to
 * what. C++11 and later. */
#ifndef LUDUS_TRACY_COMPAT_TRACY_HPP
#define LUDUS_TRACY_COMPAT_TRACY_HPP

#include "../common/TracyColor.hpp"
#include "../common/TracySystem.hpp"
#include "TracyC.h"

namespace tracy {
/* TracyPlotConfig's formats (the configuration itself is dropped). */
enum class PlotFormatType : uint8_t { Number, Memory, Percentage, Watt };
} // namespace tracy

#ifndef TracyFunction
#define TracyFunction __func__
#endif
#ifndef TracyFile
#define TracyFile __FILE__
#endif
#ifndef TracyLine
#define TracyLine __LINE__
#endif

#if !LUDUS__TC_ON

#define TracyNoop

#define ZoneNamed(x, y)
#define ZoneNamedN(x, y, z)
#define ZoneNamedC(x, y, z)
#define ZoneNamedNC(x, y, z, w)
#define ZoneTransient(x, y)
#define ZoneTransientN(x, y, z)
#define ZoneTransientNC(x, y, z, w)
#define ZoneScoped
#define ZoneScopedN(x)
#define ZoneScopedC(x)
#define ZoneScopedNC(x, y)
#define ZoneText(x, y)
#define ZoneTextV(x, y, z)
#define ZoneTextF(...)
#define ZoneTextVF(x, ...)
#define ZoneName(x, y)
#define ZoneNameV(x, y, z)
#define ZoneNameF(...)
#define ZoneNameVF(x, ...)
#define ZoneColor(x)
#define ZoneColorV(x, y)
#define ZoneValue(x)
#define ZoneValueV(x, y)
#define ZoneIsActive false
#define ZoneIsActiveV(x) false
#define FrameMark
#define FrameMarkNamed(x)
#define FrameMarkStart(x)
#define FrameMarkEnd(x)
#define FrameImage(x, y, z, w, a)
#define TracyLockable(type, varname) type varname
#define TracyLockableN(type, varname, desc) type varname
#define TracySharedLockable(type, varname) type varname
#define TracySharedLockableN(type, varname, desc) type varname
#define LockableBase(type) type
#define SharedLockableBase(type) type
#define LockMark(x) (void)x
#define LockableName(x, y, z)
#define TracyPlot(x, y)
#define TracyPlotConfig(x, y, z, w, a)
#define TracyMessage(x, y)
#define TracyMessageL(x)
#define TracyMessageC(x, y, z)
#define TracyMessageLC(x, y)
#define TracyAppInfo(x, y)
#define TracyAlloc(x, y)
#define TracyFree(x)
#define TracyMemoryDiscard(x)
#define TracySecureAlloc(x, y)
#define TracySecureFree(x)
#define TracySecureMemoryDiscard(x)
#define TracyAllocN(x, y, z)
#define TracyFreeN(x, y)
#define TracySecureAllocN(x, y, z)
#define TracySecureFreeN(x, y)
#define ZoneNamedS(x, y, z)
#define ZoneNamedNS(x, y, z, w)
#define ZoneNamedCS(x, y, z, w)
#define ZoneNamedNCS(x, y, z, w, a)
#define ZoneTransientS(x, y, z)
#define ZoneTransientNS(x, y, z, w)
#define ZoneScopedS(x)
#define ZoneScopedNS(x, y)
#define ZoneScopedCS(x, y)
#define ZoneScopedNCS(x, y, z)
#define TracyAllocS(x, y, z)
#define TracyFreeS(x, y)
#define TracyMemoryDiscardS(x, y)
#define TracySecureAllocS(x, y, z)
#define TracySecureFreeS(x, y)
#define TracySecureMemoryDiscardS(x, y)
#define TracyAllocNS(x, y, z, w)
#define TracyFreeNS(x, y, z)
#define TracySecureAllocNS(x, y, z, w)
#define TracySecureFreeNS(x, y, z)
#define TracyMessageS(x, y, z)
#define TracyMessageLS(x, y)
#define TracyMessageCS(x, y, z, w)
#define TracyMessageLCS(x, y, z)
#define TracySourceCallbackRegister(x, y)
#define TracyParameterRegister(x, y)
#define TracyParameterSetup(x, y, z, w)
#define TracyIsConnected false
#define TracyIsStarted false
#define TracySetProgramName(x)
#define TracyFiberEnter(x)
#define TracyFiberEnterHint(x, y)
#define TracyFiberLeave

#else /* LUDUS__TC_ON */

#include <stddef.h>

namespace tracy {

/* A zone of the enclosing block: a Ludus scope (the same inline begin and
 * end), which can also be inactive (a branch) and carry Tracy's text, name
 * and value as annotations. */
class ScopedZone {
  public:
    explicit ScopedZone(const ludus_site *site, bool active = true)
        : m_token(ludus__tc_zone_begin(site, active ? 1 : 0)) {}
    /* A transient zone: its name is known at run time (a Ludus dynamic
     * scope, interned per capture). */
    ScopedZone(const char *name, bool active) : m_token(active ? LUDUS__DYN_BEGIN(name) : 0) {}
    ~ScopedZone() {
        ludus__scope_end(m_token);
    }
    ScopedZone(const ScopedZone &) = delete;
    ScopedZone &operator=(const ScopedZone &) = delete;

    void Text(const char *txt, size_t size) {
        ludus__tc_zone_text(m_token, LUDUS__TC_KEY_TEXT, txt, size);
    }
    void Name(const char *txt, size_t size) {
        ludus__tc_zone_text(m_token, LUDUS__TC_KEY_NAME, txt, size);
    }
    template <typename... Args> void TextFmt(const char *fmt, Args... args) {
        ludus__tc_zone_textf(m_token, LUDUS__TC_KEY_TEXT, fmt, args...);
    }
    template <typename... Args> void NameFmt(const char *fmt, Args... args) {
        ludus__tc_zone_textf(m_token, LUDUS__TC_KEY_NAME, fmt, args...);
    }
    void Color(uint32_t color) {
        (void)color;
    }
    void Value(uint64_t value) {
        ludus__tc_zone_value(m_token, value);
    }
    bool IsActive() const {
        return m_token != 0;
    }

  private:
    uintptr_t m_token;
};

/* A lock that records its contended waits (Ludus lock waits: category
 * "lock", named after the lock or its declaration): lock() tries first, and
 * only a failed try records the blocking wait. Any type with lock, unlock
 * and try_lock (std::mutex, std::recursive_mutex, your own). */
template <class T> class Lockable {
  public:
    explicit Lockable(const ludus_site *site) : m_site(site) {}
    Lockable(const Lockable &) = delete;
    Lockable &operator=(const Lockable &) = delete;

    void lock() {
        take([](T &l) { return l.try_lock(); }, [](T &l) { l.lock(); });
    }
    void unlock() {
        m_lockable.unlock();
    }
    bool try_lock() {
        return m_lockable.try_lock();
    }
    void Mark(const ludus_site *site) {
        (void)site;
    }
    /* The lock's name in every wait (ludus_lock_name). */
    void CustomName(const char *name, size_t size) {
        ludus__tc_lock_name(this, name, size);
    }
    ~Lockable() {
        (void)ludus_lock_forget(this);
    }

  protected:
    /* Tries first; only a failed try records the blocking wait (one way
     * for every side of every lock type). */
    template <class Try, class Block> void take(Try try_take, Block block) {
        if (try_take(m_lockable)) return;
        uintptr_t token = ludus_lock_wait_begin(this, m_site);
        block(m_lockable);
        ludus_lock_wait_end(token);
    }
    T m_lockable;

  private:
    const ludus_site *m_site;
};

/* The same for a shared lock (std::shared_mutex): the shared side too. */
template <class T> class SharedLockable : public Lockable<T> {
  public:
    explicit SharedLockable(const ludus_site *site) : Lockable<T>(site) {}

    void lock_shared() {
        this->take([](T &l) { return l.try_lock_shared(); }, [](T &l) { l.lock_shared(); });
    }
    void unlock_shared() {
        this->m_lockable.unlock_shared();
    }
    bool try_lock_shared() {
        return this->m_lockable.try_lock_shared();
    }
};

/* Plots: integers stay integers, the rest are doubles. */
inline void PlotData(const char *name, int64_t value) {
    ludus__tc_plot_i64(name, value);
}
inline void PlotData(const char *name, double value) {
    ludus__tc_plot_f64(name, value);
}
inline void PlotData(const char *name, float value) {
    ludus__tc_plot_f64(name, static_cast<double>(value));
}
template <typename T> inline void PlotData(const char *name, T value) {
    ludus__tc_plot_i64(name, static_cast<int64_t>(value));
}

} // namespace tracy

#define TracyNoop

/* Zones: the site is static (the name a string literal; no name: the
 * enclosing function); colour and callstack depth are not kept. */
#define ZoneNamedNC(varname, name, color, active)            \
    LUDUS__TC_SITE(LUDUS__VAR(ludus__tc_site_), name, NULL); \
    ::tracy::ScopedZone varname(&LUDUS__VAR(ludus__tc_site_), active)
#define ZoneNamed(varname, active) ZoneNamedNC(varname, nullptr, 0, active)
#define ZoneNamedN(varname, name, active) ZoneNamedNC(varname, name, 0, active)
#define ZoneNamedC(varname, color, active) ZoneNamedNC(varname, nullptr, color, active)
#define ZoneNamedS(varname, depth, active) ZoneNamedNC(varname, nullptr, 0, active)
#define ZoneNamedNS(varname, name, depth, active) ZoneNamedNC(varname, name, 0, active)
#define ZoneNamedCS(varname, color, depth, active) ZoneNamedNC(varname, nullptr, color, active)
#define ZoneNamedNCS(varname, name, color, depth, active) ZoneNamedNC(varname, name, color, active)

#define ZoneScoped ZoneNamed(ludus_tracy_scoped_zone, true)
#define ZoneScopedN(name) ZoneNamedN(ludus_tracy_scoped_zone, name, true)
#define ZoneScopedC(color) ZoneNamedC(ludus_tracy_scoped_zone, color, true)
#define ZoneScopedNC(name, color) ZoneNamedNC(ludus_tracy_scoped_zone, name, color, true)
#define ZoneScopedS(depth) ZoneScoped
#define ZoneScopedNS(name, depth) ZoneScopedN(name)
#define ZoneScopedCS(color, depth) ZoneScopedC(color)
#define ZoneScopedNCS(name, color, depth) ZoneScopedNC(name, color)

/* Transient zones: a name known at run time (no name: the function's). */
#define ZoneTransient(varname, active) ZoneNamed(varname, active)
#define ZoneTransientN(varname, name, active) ::tracy::ScopedZone varname(static_cast<const char *>(name), active)
#define ZoneTransientNC(varname, name, color, active) ZoneTransientN(varname, name, active)
#define ZoneTransientS(varname, depth, active) ZoneNamed(varname, active)
#define ZoneTransientNS(varname, name, depth, active) ZoneTransientN(varname, name, active)

#define ZoneText(txt, size) ludus_tracy_scoped_zone.Text(txt, size)
#define ZoneTextV(varname, txt, size) varname.Text(txt, size)
#define ZoneTextF(...) ludus_tracy_scoped_zone.TextFmt(__VA_ARGS__)
#define ZoneTextVF(varname, ...) varname.TextFmt(__VA_ARGS__)
#define ZoneName(txt, size) ludus_tracy_scoped_zone.Name(txt, size)
#define ZoneNameV(varname, txt, size) varname.Name(txt, size)
#define ZoneNameF(...) ludus_tracy_scoped_zone.NameFmt(__VA_ARGS__)
#define ZoneNameVF(varname, ...) varname.NameFmt(__VA_ARGS__)
#define ZoneColor(color) ludus_tracy_scoped_zone.Color(color)
#define ZoneColorV(varname, color) varname.Color(color)
#define ZoneValue(value) ludus_tracy_scoped_zone.Value(value)
#define ZoneValueV(varname, value) varname.Value(value)
#define ZoneIsActive ludus_tracy_scoped_zone.IsActive()
#define ZoneIsActiveV(varname) varname.IsActive()

/* Frames: FrameMark is Ludus's frame; the others as in TracyC.h. */
#define FrameMark LUDUS_PROFILE_FRAME()
#define FrameMarkNamed(name) ludus__tc_mark(name)
#define FrameMarkStart(name) ludus__tc_frame_start(name)
#define FrameMarkEnd(name) ludus__tc_frame_end(name)
#define FrameImage(image, width, height, offset, flip) \
    ((void)(image), (void)(width), (void)(height), (void)(offset), (void)(flip))

/* Locks: a lockable's site is named "type varname" (or desc). */
#define LUDUS__TC_LOCK_SITE_OF(text)                                    \
    []() -> const ludus_site * {                                        \
        LUDUS__TC_SITE(ludus__tc_lock_site, text, LUDUS_LOCK_CATEGORY); \
        return &ludus__tc_lock_site;                                    \
    }()
#define TracyLockable(type, varname)               \
    ::tracy::Lockable<type> varname {              \
        LUDUS__TC_LOCK_SITE_OF(#type " " #varname) \
    }
#define TracyLockableN(type, varname, desc) \
    ::tracy::Lockable<type> varname {       \
        LUDUS__TC_LOCK_SITE_OF(desc)        \
    }
#define TracySharedLockable(type, varname)         \
    ::tracy::SharedLockable<type> varname {        \
        LUDUS__TC_LOCK_SITE_OF(#type " " #varname) \
    }
#define TracySharedLockableN(type, varname, desc) \
    ::tracy::SharedLockable<type> varname {       \
        LUDUS__TC_LOCK_SITE_OF(desc)              \
    }
#define LockableBase(type) ::tracy::Lockable<type>
#define SharedLockableBase(type) ::tracy::SharedLockable<type>
#define LockMark(varname) varname.Mark(nullptr)
#define LockableName(varname, txt, size) varname.CustomName(txt, size)

#define TracyPlot(name, val) ::tracy::PlotData(name, val)
#define TracyPlotConfig(name, type, step, fill, color) \
    ((void)(name), (void)(type), (void)(step), (void)(fill), (void)(color))

#define TracyMessage(txt, size) ludus__tc_message(txt, static_cast<size_t>(size))
#define TracyMessageL(txt) ludus__tc_message_l(txt)
#define TracyMessageC(txt, size, color) TracyMessage(txt, size)
#define TracyMessageLC(txt, color) TracyMessageL(txt)
#define TracyMessageS(txt, size, depth) TracyMessage(txt, size)
#define TracyMessageLS(txt, depth) TracyMessageL(txt)
#define TracyMessageCS(txt, size, color, depth) TracyMessage(txt, size)
#define TracyMessageLCS(txt, color, depth) TracyMessageL(txt)
#define TracyAppInfo(txt, size) TracyMessage(txt, size)

#define TracyAlloc(ptr, size) TracyCAlloc(ptr, size)
#define TracyFree(ptr) TracyCFree(ptr)
#define TracySecureAlloc(ptr, size) TracyCAlloc(ptr, size)
#define TracySecureFree(ptr) TracyCFree(ptr)
#define TracyAllocN(ptr, size, name) TracyCAllocN(ptr, size, name)
#define TracyFreeN(ptr, name) TracyCFreeN(ptr, name)
#define TracySecureAllocN(ptr, size, name) TracyCAllocN(ptr, size, name)
#define TracySecureFreeN(ptr, name) TracyCFreeN(ptr, name)
#define TracyAllocS(ptr, size, depth) TracyCAlloc(ptr, size)
#define TracyFreeS(ptr, depth) TracyCFree(ptr)
#define TracySecureAllocS(ptr, size, depth) TracyCAlloc(ptr, size)
#define TracySecureFreeS(ptr, depth) TracyCFree(ptr)
#define TracyAllocNS(ptr, size, depth, name) TracyCAllocN(ptr, size, name)
#define TracyFreeNS(ptr, depth, name) TracyCFreeN(ptr, name)
#define TracySecureAllocNS(ptr, size, depth, name) TracyCAllocN(ptr, size, name)
#define TracySecureFreeNS(ptr, depth, name) TracyCFreeN(ptr, name)
#define TracyMemoryDiscard(name) ((void)(name))
#define TracySecureMemoryDiscard(name) ((void)(name))
#define TracyMemoryDiscardS(name, depth) ((void)(name), (void)(depth))
#define TracySecureMemoryDiscardS(name, depth) ((void)(name), (void)(depth))

#define TracySourceCallbackRegister(cb, data) ((void)(cb), (void)(data))
#define TracyParameterRegister(cb, data) ((void)(cb), (void)(data))
#define TracyParameterSetup(idx, name, is_bool, val) ((void)(idx), (void)(name), (void)(is_bool), (void)(val))
#define TracyIsConnected (ludus__tc_connected() != 0)
#define TracyIsStarted true
/* The program's name in a capture is its executable's: dropped. */
#define TracySetProgramName(name) ((void)(name))
#define TracyFiberEnter(fiber) ludus_fiber_enter(fiber)
#define TracyFiberEnterHint(fiber, group_hint) ((void)(group_hint), ludus_fiber_enter(fiber))
#define TracyFiberLeave ludus_fiber_leave()

#endif /* LUDUS__TC_ON */

#endif /* LUDUS_TRACY_COMPAT_TRACY_HPP */
