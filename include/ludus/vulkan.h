/* Ludus Profiling: the Vulkan backend of GPU timing (<ludus/gpu.h>).
 * Built only with -DLUDUS_VULKAN=ON (library ludus_vulkan, which links the
 * Vulkan loader; the core library never does). docs/gpu.md explains it.
 *
 *     ludus_vk_context_desc d = {.instance = inst, .physical_device = phys};  (C++: d{}, then set)
 *     d.device = dev;
 *     d.queue_family = family; d.queue = LUDUS_GPU_QUEUE_COMPUTE;
 *     d.calibration = ludus_vk_calibration_extension(phys);   enable it on the device too
 *     ludus_vk_context *vk; ludus_vk_context_create(&d, &vk);
 *
 *     per frame, on the thread that records the command buffer:
 *     ludus_vk_collect(vk);                 read back finished frames, never waiting
 *     ludus_vk_begin_frame(vk, cmd, frame); outside a render pass (it resets queries)
 *     ludus_vk_begin_pass(vk, cmd, "Simulate"); ... ludus_vk_end_pass(vk, cmd);
 *     ludus_vk_end_frame(vk, cmd);          then submit cmd as usual
 *
 * Queries: one pool per context, a ring of frames_in_flight frames, each
 * with room for a frame pair and max_passes pairs of timestamps
 * (vkCmdWriteTimestamp, TOP_OF_PIPE at a begin, BOTTOM_OF_PIPE at an end).
 * A frame begun while every slot is still in flight is not timed and is
 * counted (ring_full); a pass beyond max_passes is not timed (counted
 * invalid). At a frame's end the GPU copies the frame's results (with
 * availability) into a host-visible buffer (vkCmdCopyQueryPoolResults, then
 * a barrier to the host): collection reads that memory and never calls the
 * driver, so it cannot stall, even on drivers whose vkGetQueryPoolResults
 * waits for the queue (Mesa's lavapipe does). A frame not yet finished
 * stays pending (counted not_ready once) and later frames wait
 * behind it (a queue finishes in order). Calibration: when the device
 * enabled VK_KHR_calibrated_timestamps or VK_EXT_calibrated_timestamps and
 * offers the device and CLOCK_MONOTONIC domains, each collection takes one
 * vkGetCalibratedTimestamps pair (kept only when the host value lies
 * between CPU reads around the call); else the context is uncalibrated.
 *
 * Thread-safety: one context is used by one thread at a time (the one that
 * records its command buffers). */
#ifndef LUDUS_VULKAN_H
#define LUDUS_VULKAN_H

#include <ludus/gpu.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The backend's interface (library ludus_vulkan, not libludus: LUDUS_API
 * marks what libludus exports). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define LUDUS_VK_API __attribute__((visibility("default")))
#else
#define LUDUS_VK_API
#endif

typedef struct ludus_vk_context ludus_vk_context;

enum ludus_vk_calibration {
    LUDUS_VK_CALIBRATION_NONE = 0, /* uncalibrated: passes anchored at their frame's begin */
    LUDUS_VK_CALIBRATION_KHR = 1,  /* VK_KHR_calibrated_timestamps enabled on the device */
    LUDUS_VK_CALIBRATION_EXT = 2   /* VK_EXT_calibrated_timestamps enabled on the device */
};

typedef struct ludus_vk_context_desc {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;     /* the family of the queue the command buffers go to */
    int queue;                 /* enum ludus_gpu_queue */
    const char *name;          /* the track's name; NULL: "<device> <queue>" */
    uint32_t frames_in_flight; /* ring slots; default 3 */
    uint32_t max_passes;       /* passes timed per frame; default 32 */
    int calibration;           /* enum ludus_vk_calibration: the extension the device enabled */
} ludus_vk_context_desc;

/* The calibration extension the physical device offers (KHR first), or
 * LUDUS_VK_CALIBRATION_NONE; enable its name (ludus_vk_calibration_name) when
 * creating the device. */
LUDUS_VK_API int ludus_vk_calibration_extension(VkPhysicalDevice physical_device);
LUDUS_VK_API const char *ludus_vk_calibration_name(int calibration);

/* LUDUS_EINVAL, LUDUS_ENOMEM, LUDUS_EUNSUPPORTED (the queue family has no
 * timestamps), LUDUS_EIO (a Vulkan call failed). */
LUDUS_VK_API int ludus_vk_context_create(const ludus_vk_context_desc *desc, ludus_vk_context **out);
/* Frames still in flight are counted lost (as is a device lost: its frames
 * never complete). Call after the device is idle
 * (the query pool is destroyed). NULL is a no-op. */
LUDUS_VK_API void ludus_vk_context_destroy(ludus_vk_context *vk);
/* The core context (its coverage, its samples). */
LUDUS_VK_API ludus_gpu_context *ludus_vk_gpu_context(ludus_vk_context *vk);
/* Which calibration the context uses (NONE when the domains did not match). */
LUDUS_VK_API int ludus_vk_calibration_used(const ludus_vk_context *vk);

/* 0, or LUDUS_EBUSY when the ring is full (the frame is not timed; its
 * passes are no-ops). begin_frame and end_frame record query resets and
 * copies: call them outside a render pass. */
LUDUS_VK_API int ludus_vk_begin_frame(ludus_vk_context *vk, VkCommandBuffer cmd, uint64_t frame);
/* name: kept by pointer until the frame is collected (a literal, or a
 * string that lives as long). */
LUDUS_VK_API void ludus_vk_begin_pass(ludus_vk_context *vk, VkCommandBuffer cmd, const char *name);
LUDUS_VK_API void ludus_vk_end_pass(ludus_vk_context *vk, VkCommandBuffer cmd);
LUDUS_VK_API void ludus_vk_end_frame(ludus_vk_context *vk, VkCommandBuffer cmd);
/* Reads back the frames that have finished and hands them over; never
 * waits. Returns the frames collected, or a negative LUDUS_E* code. */
LUDUS_VK_API int ludus_vk_collect(ludus_vk_context *vk);

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_VULKAN_H */
