// Tracy's C++ API (tracy/Tracy.hpp) onto Ludus: every mapped macro, written
// as a program instrumented for Tracy writes it, run under a capture saved
// to argv[1] (JSON); check_capture.py checks what the capture holds
// (expect_cpp.txt). Built as C++11 and C++20 with -Wall -Wextra -Werror.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>
#if __cplusplus >= 201703L
#include <shared_mutex>
#endif

#include <ludus/capture.h>
#include <tracy/Tracy.hpp>

namespace {

// A lock as a class member, as Tracy's manual writes it.
struct Queue {
    TracyLockable(std::mutex, m_lock);
    int items = 0;
};

// A mutex that counts its failed tries: the test knows when a waiter blocks.
std::atomic<int> g_failed_tries{0};
struct SpyMutex {
    std::mutex m;
    bool try_lock() {
        bool ok = m.try_lock();
        if (!ok) g_failed_tries++;
        return ok;
    }
    void lock() {
        m.lock();
    }
    void unlock() {
        m.unlock();
    }
};

TracyLockableN(SpyMutex, g_named, "g_named");

void nested(int depth) {
    ZoneScoped;
    if (depth > 0) nested(depth - 1);
}

void work(int frame) {
    ZoneScopedN("Work");
    ZoneText("text!!", 4);
    ZoneValue(7);
    ZoneColor(tracy::Color::Red);
    ZoneName("nm", 2);
    ZoneTextF("frame %d", frame);
    ZoneNameF("n%d", frame);
    if (!ZoneIsActive) std::abort();
    { ZoneScopedC(tracy::Color::Blue); }
    { ZoneScopedNC("Colored", 0x00ff00); }
    { ZoneScopedS(4); }
    { ZoneScopedNS("Stacked", 4); }
    { ZoneScopedCS(0xff, 4); }
    { ZoneScopedNCS("StackedColored", 0xff, 4); }
    ZoneNamedN(sub, "Sub", true);
    ZoneTextV(sub, "sub text", 8);
    ZoneValueV(sub, 9);
    ZoneColorV(sub, 0xff);
    ZoneNameV(sub, "subname", 7);
    ZoneTextVF(sub, "%s", "x");
    ZoneNameVF(sub, "%d", 1);
    if (!ZoneIsActiveV(sub)) std::abort();
    ZoneNamedN(off, "NeverRecorded", false);
    if (ZoneIsActiveV(off)) std::abort();
    ZoneTextV(off, "x", 1);
    {
        ZoneNamed(n1, true);
        ZoneNamedC(n2, 0xff, true);
        ZoneNamedNC(n3, "NamedColored", 0xff, true);
        ZoneNamedS(n4, 4, true);
        ZoneNamedNS(n5, "NamedStacked", 4, true);
        ZoneNamedCS(n6, 0xff, 4, true);
        ZoneNamedNCS(n7, "NamedColoredStacked", 0xff, 4, true);
    }
    {
        const char *runtime = frame % 2 ? "Odd" : "Even";
        (void)runtime;
        ZoneTransientN(t1, runtime, true);
        ZoneTransient(t2, true);
        ZoneTransientNC(t3, "TransientColored", 0xff, true);
        ZoneTransientS(t4, 4, true);
        ZoneTransientNS(t5, "TransientStacked", 4, true);
    }
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (ludus_capture_begin(nullptr) != 0) return 1;
    tracy::SetThreadName("main");
    TracySetProgramName("tracy_cpp");
    TracyAppInfo("tracy_cpp test", 14);
    if (!TracyIsConnected || !TracyIsStarted) return 3;
    LockableName(g_named, "GlobalLockXYZ", 10); // "GlobalLock"

    Queue q;
    for (int frame = 0; frame < 4; frame++) {
        {
            ZoneScopedN("Frame");
            nested(2);
            work(frame);
            TracyPlot("IntPlot", static_cast<int64_t>(frame * 3));
            TracyPlot("DoublePlot", 0.5 * frame);
            TracyPlot("FloatPlot", 0.25f * static_cast<float>(frame));
            TracyPlot("IntPlot2", frame);
            TracyPlotConfig("IntPlot", tracy::PlotFormatType::Number, true, true, 0);
            TracyMessage("message sizedXX", 13);
            TracyMessageL("message literal");
            TracyMessageC("message color", 13, 0xff);
            TracyMessageLC("message literal color", 0xff);
            TracyMessageS("message stack", 13, 4);
            TracyMessageLS("message literal stack", 4);
            TracyMessageCS("message color stack", 19, 0xff, 4);
            TracyMessageLCS("message literal color stack", 0xff, 4);

            int *p = new int[25];
            TracyAlloc(p, 100);
            int *r = new int[250];
            TracyAllocN(r, 1000, "Meshes");
            int *s = new int[2];
            TracySecureAlloc(s, 8);
            TracyAllocS(s + 1, 4, 4);
            TracySecureAllocS(s + 2, 4, 4);
            TracyAllocNS(r + 1, 10, 4, "Meshes");
            TracySecureAllocN(r + 2, 20, "Meshes");
            TracySecureAllocNS(r + 3, 30, 4, "Meshes");
            TracyFree(p);
            TracyFreeN(r, "Meshes");
            TracySecureFree(s);
            TracyFreeS(s + 1, 4);
            TracySecureFreeS(s + 2, 4);
            TracyFreeNS(r + 1, 4, "Meshes");
            TracySecureFreeN(r + 2, "Meshes");
            if (frame != 3) { // the last 30 bytes stay live
                TracySecureFreeNS(r + 3, 4, "Meshes");
            }
            TracyMemoryDiscard("Meshes");
            TracySecureMemoryDiscard("Meshes");
            TracyMemoryDiscardS("Meshes", 4);
            TracySecureMemoryDiscardS("Meshes", 4);
            delete[] p;
            delete[] r;
            delete[] s;

            FrameMarkStart("Render");
            { ZoneScopedN("Draw"); }
            FrameMarkEnd("Render");
            FrameMarkNamed("Secondary");
            FrameImage(nullptr, 0, 0, 0, false);
        }
        FrameMark;
    }

    // Contended waits: two threads hammer the lockable; only failed tries
    // record a wait, so the check asks for a count that cannot exceed the
    // number of locks (contention itself depends on timing).
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; t++)
        threads.emplace_back([&q, t] {
            tracy::SetThreadNameWithHint(t ? "worker1" : "worker0", 1);
            for (int i = 0; i < 200; i++) {
                std::lock_guard<LockableBase(std::mutex)> guard(q.m_lock);
                LockMark(q.m_lock);
                q.items++;
            }
        });
    for (auto &t : threads) t.join();
    // One wait that is recorded whatever the schedule: main holds the lock
    // until the waiter's try has failed (the spy counts failed tries), so
    // the waiter blocks, and its wait is recorded, before main unlocks.
    g_named.lock();
    std::thread waiter([] {
        g_named.lock();
        g_named.unlock();
    });
    while (g_failed_tries.load() == 0) std::this_thread::yield();
    g_named.unlock();
    waiter.join();
    if (!g_named.try_lock()) return 4;
    g_named.unlock();

#if __cplusplus >= 201703L
    TracySharedLockable(std::shared_mutex, shared);
    shared.lock_shared();
    shared.unlock_shared();
    shared.lock();
    shared.unlock();
    TracySharedLockableN(std::shared_mutex, shared2, "Shared2");
    std::lock_guard<SharedLockableBase(std::shared_mutex)> g2(shared2);
#endif
    TracyLockableN(std::mutex, named_lock, "NamedByDesc");
    named_lock.lock();
    named_lock.unlock();

    TracyFiberEnter("Fiber B");
    { ZoneScopedN("OnFiber"); }
    TracyFiberLeave;
    TracyFiberEnterHint("Fiber C", 1);
    TracyFiberLeave;
    TracySourceCallbackRegister(nullptr, nullptr);
    TracyParameterRegister(nullptr, nullptr);
    TracyParameterSetup(0, "p", false, 0);
    TracyNoop;

    ludus_memory_sample();
    ludus_capture *cap = nullptr;
    if (ludus_capture_end(&cap) != 0) return 5;
    int rc = ludus_capture_save(cap, LUDUS_FORMAT_JSON, 0, argv[1]);
    ludus_capture_release(cap);
    return rc == 0 && q.items == 400 ? 0 : 6;
}
