/* Headless Vulkan example of GPU timing (<ludus/vulkan.h>): a frame loop
 * that records a few compute passes per frame (clear, simulate, reduce,
 * copy), times them with the Vulkan backend, and writes one capture with
 * the CPU frames and the GPU queue (JSON, pftrace and .ludus by extension).
 * Runs on any Vulkan 1.0 device; CI runs it on Mesa's lavapipe.
 *
 *   vulkan_compute [--frames N] [--in-flight K] [--collect-every M] OUT...
 *
 * --collect-every M reads results back only every M frames (a late
 * readback: with K slots, frames begun while all are in flight are counted
 * ring_full); --collect-after-submit collects right after each submission,
 * before the GPU can have finished it (not_ready, read at a later call). It prints which calibration path the device
 * took.
 *
 *   vulkan_compute --overhead N
 *
 * measures what timing a pass costs (gate G11, bench/RESULTS.md): the CPU
 * time of ludus_vk_begin_pass + ludus_vk_end_pass while a capture runs, and
 * the GPU time of a timed empty pass (frames of N empty timed passes against
 * frames of none), medians of 9 runs; and what ludus_vk_collect costs. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <ludus/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes_spv.h"

#define N_ELEMENTS (64u * 1024u)

#define CHECK(call)                                                                  \
    do {                                                                             \
        VkResult r_ = (call);                                                        \
        if (r_ != VK_SUCCESS) {                                                      \
            fprintf(stderr, "vulkan_compute: %s failed (VkResult %d)\n", #call, r_); \
            exit(2);                                                                 \
        }                                                                            \
    } while (0)

typedef struct push {
    uint32_t n, iterations;
    float k;
} push;

static VkInstance instance;
static VkPhysicalDevice phys;
static VkDevice device;
static VkQueue queue;
static uint32_t family;
static VkBuffer buffer;
static VkDeviceMemory memory;
static VkPipelineLayout layout;
static VkPipeline pipeline;
static VkDescriptorSet set;

static void setup(int *calibration) {
    VkApplicationInfo app = {
        VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "ludus vulkan_compute", 1, "ludus", 1, VK_API_VERSION_1_0};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ii.pApplicationInfo = &app;
    CHECK(vkCreateInstance(&ii, NULL, &instance));
    uint32_t n = 0;
    CHECK(vkEnumeratePhysicalDevices(instance, &n, NULL));
    if (!n) {
        fprintf(stderr, "vulkan_compute: no Vulkan device (install mesa-vulkan-drivers for lavapipe)\n");
        exit(2);
    }
    VkPhysicalDevice devs[16];
    if (n > 16) n = 16;
    CHECK(vkEnumeratePhysicalDevices(instance, &n, devs));
    phys = devs[0];
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nf, NULL);
    VkQueueFamilyProperties fam[16];
    if (nf > 16) nf = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nf, fam);
    family = UINT32_MAX;
    for (uint32_t i = 0; i < nf && family == UINT32_MAX; i++)
        if ((fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam[i].timestampValidBits) family = i;
    if (family == UINT32_MAX) {
        fprintf(stderr, "vulkan_compute: no compute queue with timestamps\n");
        exit(2);
    }
    *calibration = ludus_vk_calibration_extension(phys);
    const char *ext = ludus_vk_calibration_name(*calibration);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, family, 1, &prio};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = *calibration ? 1 : 0;
    di.ppEnabledExtensionNames = &ext;
    CHECK(vkCreateDevice(phys, &di, NULL, &device));
    vkGetDeviceQueue(device, family, 0, &queue);

    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = N_ELEMENTS * sizeof(float);
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    CHECK(vkCreateBuffer(device, &bi, NULL, &buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(phys, &mp);
    uint32_t type = 0;
    while (type < mp.memoryTypeCount && !(req.memoryTypeBits & (1u << type))) type++;
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type};
    CHECK(vkAllocateMemory(device, &ai, NULL, &memory));
    CHECK(vkBindBufferMemory(device, buffer, memory, 0));

    VkDescriptorSetLayoutBinding b = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 1, &b};
    VkDescriptorSetLayout dsl;
    CHECK(vkCreateDescriptorSetLayout(device, &li, NULL, &dsl));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push)};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &dsl, 1, &pr};
    CHECK(vkCreatePipelineLayout(device, &pli, NULL, &layout));
    VkShaderModuleCreateInfo si = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, sizeof passes_spv, passes_spv};
    VkShaderModule mod;
    CHECK(vkCreateShaderModule(device, &si, NULL, &mod));
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = (VkPipelineShaderStageCreateInfo){
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, mod, "main", NULL};
    ci.layout = layout;
    CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, NULL, &pipeline));
    vkDestroyShaderModule(device, mod, NULL);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 1, &ps};
    VkDescriptorPool dp;
    CHECK(vkCreateDescriptorPool(device, &dpi, NULL, &dp));
    VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, dp, 1, &dsl};
    CHECK(vkAllocateDescriptorSets(device, &dai, &set));
    VkDescriptorBufferInfo dbi = {buffer, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &dbi;
    vkUpdateDescriptorSets(device, 1, &w, 0, NULL);
}

static void barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

static void dispatch(VkCommandBuffer cmd, uint32_t iterations) {
    push p = {N_ELEMENTS, iterations, 0.999f};
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    vkCmdDispatch(cmd, N_ELEMENTS / 64, 1, 1);
}

/* The frame's GPU work, each pass timed. */
static void record(ludus_vk_context *vk, VkCommandBuffer cmd, uint64_t frame) {
    LUDUS_PROFILE_FUNCTION();
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK(vkBeginCommandBuffer(cmd, &bi));
    ludus_vk_begin_frame(vk, cmd, frame);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
    ludus_vk_begin_pass(vk, cmd, "Clear");
    vkCmdFillBuffer(cmd, buffer, 0, VK_WHOLE_SIZE, 0x3f800000u); /* 1.0f */
    ludus_vk_end_pass(vk, cmd);
    barrier(cmd);
    ludus_vk_begin_pass(vk, cmd, "Simulate");
    dispatch(cmd, 64 + (uint32_t)(frame % 4) * 32); /* a frame-dependent load */
    ludus_vk_end_pass(vk, cmd);
    barrier(cmd);
    ludus_vk_begin_pass(vk, cmd, "Reduce");
    dispatch(cmd, 16);
    ludus_vk_end_pass(vk, cmd);
    ludus_vk_end_frame(vk, cmd);
    CHECK(vkEndCommandBuffer(cmd));
    LUDUS_PROFILE_COUNT(Dispatches, 2);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* One frame of n empty timed passes, submitted and waited for; returns the
 * CPU ns recording the passes took, *gpu_ns the frame's device time. */
static int64_t overhead_frame(ludus_vk_context *vk, VkCommandBuffer cmd, VkFence fence, uint32_t n, uint64_t frame,
                              int64_t *collect_ns) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(vkBeginCommandBuffer(cmd, &bi));
    ludus_vk_begin_frame(vk, cmd, frame);
    int64_t t0 = ludus_gpu_cpu_now_ns();
    for (uint32_t i = 0; i < n; i++) {
        ludus_vk_begin_pass(vk, cmd, "Empty");
        ludus_vk_end_pass(vk, cmd);
    }
    int64_t cpu = ludus_gpu_cpu_now_ns() - t0;
    ludus_vk_end_frame(vk, cmd);
    CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    CHECK(vkResetFences(device, 1, &fence));
    CHECK(vkQueueSubmit(queue, 1, &si, fence));
    CHECK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    int64_t c0 = ludus_gpu_cpu_now_ns();
    ludus_vk_collect(vk);
    *collect_ns = ludus_gpu_cpu_now_ns() - c0;
    return cpu;
}

static int overhead(int calibration, uint32_t n) {
    ludus_vk_context_desc vd = {0};
    vd.instance = instance;
    vd.physical_device = phys;
    vd.device = device;
    vd.queue_family = family;
    vd.queue = LUDUS_GPU_QUEUE_COMPUTE;
    vd.max_passes = n;
    vd.calibration = calibration;
    ludus_vk_context *vk;
    if (ludus_vk_context_create(&vd, &vk)) return 2;
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &cpi, NULL, &pool));
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
                                       VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    CHECK(vkAllocateCommandBuffers(device, &cai, &cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0};
    VkFence fence;
    CHECK(vkCreateFence(device, &fi, NULL, &fence));
    ludus_capture_desc cd = {0};
    if (ludus_capture_begin(&cd)) return 2;
    enum { RUNS = 9 };
    int64_t cpu[RUNS], gpu_with[RUNS], gpu_without[RUNS], col[RUNS], dummy;
    uint64_t frame = 0;
    for (int r = 0; r < RUNS; r++) {
        cpu[r] = overhead_frame(vk, cmd, fence, n, frame++, &col[r]);
        overhead_frame(vk, cmd, fence, 0, frame++, &dummy);
    }
    ludus_capture_end(NULL);
    ludus_capture *c;
    if (ludus_capture_last(&c)) return 2;
    int nw = 0, nwo = 0;
    for (uint64_t i = 0; i < ludus_capture_gpu_span_count(c); i++) {
        ludus_gpu_span sp;
        ludus_capture_gpu_span(c, i, &sp);
        if (sp.pass) continue;
        if (sp.frame % 2 == 0 && nw < RUNS) gpu_with[nw++] = sp.device_ns;
        if (sp.frame % 2 == 1 && nwo < RUNS) gpu_without[nwo++] = sp.device_ns;
    }
    ludus_capture_release(c);
    if (nw != RUNS || nwo != RUNS) {
        fprintf(stderr, "vulkan_compute: %d/%d frames came back\n", nw, nwo);
        return 1;
    }
    qsort(cpu, RUNS, sizeof *cpu, cmp_i64);
    qsort(gpu_with, RUNS, sizeof *gpu_with, cmp_i64);
    qsort(gpu_without, RUNS, sizeof *gpu_without, cmp_i64);
    qsort(col, RUNS, sizeof *col, cmp_i64);
    printf("G11 (%u timed empty passes per frame, median of %d frames):\n", n, RUNS);
    printf("  CPU per pass (begin + end: 2 vkCmdWriteTimestamp + 1 flow event): %.1f ns\n", (double)cpu[RUNS / 2] / n);
    printf("  GPU per timed empty pass: %.1f ns (frame %.1f us with, %.1f us without)\n",
           (double)(gpu_with[RUNS / 2] - gpu_without[RUNS / 2]) / n, gpu_with[RUNS / 2] / 1e3,
           gpu_without[RUNS / 2] / 1e3);
    printf("  ludus_vk_collect of a frame of %u passes (calibration included): %.1f us\n", n, col[RUNS / 2] / 1e3);
    ludus_vk_context_destroy(vk);
    vkDestroyFence(device, fence, NULL);
    vkDestroyCommandPool(device, pool, NULL);
    return 0;
}

int main(int argc, char **argv) {
    int frames = 60, in_flight = 2, collect_every = 1, overhead_passes = 0, early = 0;
    const char *outs[4];
    int nouts = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--in-flight") && i + 1 < argc)
            in_flight = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--collect-every") && i + 1 < argc)
            collect_every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--collect-after-submit"))
            early = 1;
        else if (!strcmp(argv[i], "--overhead") && i + 1 < argc)
            overhead_passes = atoi(argv[++i]);
        else if (nouts < 4 && argv[i][0] != '-')
            outs[nouts++] = argv[i];
        else {
            fprintf(stderr, "usage: vulkan_compute [--frames N] [--in-flight K] [--collect-every M] "
                            "[--collect-after-submit] OUT...\n"
                            "       vulkan_compute --overhead N\n");
            return 2;
        }
    }
    if (frames < 1 || in_flight < 1 || in_flight > 8 || collect_every < 1) return 2;
    int calibration;
    setup(&calibration);
    if (overhead_passes > 0) return overhead(calibration, (uint32_t)overhead_passes);
    ludus_thread_register("render");
    ludus_vk_context_desc vd = {0};
    vd.instance = instance;
    vd.physical_device = phys;
    vd.device = device;
    vd.queue_family = family;
    vd.queue = LUDUS_GPU_QUEUE_COMPUTE;
    vd.frames_in_flight = (uint32_t)in_flight + 1; /* one more than the CPU runs ahead: collection never waits */
    if (collect_every > 1) vd.frames_in_flight = (uint32_t)in_flight; /* a late readback runs the ring full */
    vd.calibration = calibration;
    ludus_vk_context *vk;
    int rc = ludus_vk_context_create(&vd, &vk);
    if (rc) {
        fprintf(stderr, "vulkan_compute: ludus_vk_context_create: %s\n", ludus_error_string(rc));
        return 2;
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    printf("device: %s; offered: %s; calibration path: %s\n", props.deviceName, ludus_vk_calibration_name(calibration),
           ludus_vk_calibration_used(vk) ? ludus_vk_calibration_name(ludus_vk_calibration_used(vk))
                                         : "uncalibrated (no device + CLOCK_MONOTONIC domains)");
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &cpi, NULL, &pool));
    VkCommandBuffer cmds[8];
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
                                       VK_COMMAND_BUFFER_LEVEL_PRIMARY, (uint32_t)in_flight};
    CHECK(vkAllocateCommandBuffers(device, &cai, cmds));
    VkFence fences[8];
    for (int i = 0; i < in_flight; i++) {
        VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, VK_FENCE_CREATE_SIGNALED_BIT};
        CHECK(vkCreateFence(device, &fi, NULL, &fences[i]));
    }
    ludus_capture_desc cd = {0};
    if ((rc = ludus_capture_begin(&cd)) != 0) {
        fprintf(stderr, "vulkan_compute: ludus_capture_begin: %s\n", ludus_error_string(rc));
        return 2;
    }
    for (int f = 0; f < frames; f++) {
        LUDUS_PROFILE_FRAME();
        int k = f % in_flight;
        {
            LUDUS_PROFILE_SCOPE(WaitForSlot); /* the application's own frame pacing, not the profiler's */
            CHECK(vkWaitForFences(device, 1, &fences[k], VK_TRUE, UINT64_MAX));
        }
        if (f % collect_every == 0 && !early) {
            LUDUS_PROFILE_SCOPE(CollectGpuTimes);
            ludus_vk_collect(vk);
        }
        CHECK(vkResetFences(device, 1, &fences[k]));
        record(vk, cmds[k], (uint64_t)f);
        LUDUS_PROFILE_SCOPE(Submit);
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmds[k];
        CHECK(vkQueueSubmit(queue, 1, &si, fences[k]));
        if (early) { /* right after the submission: this frame cannot be done yet */
            LUDUS_PROFILE_SCOPE(CollectGpuTimes);
            ludus_vk_collect(vk);
        }
    }
    LUDUS_PROFILE_FRAME();
    CHECK(vkDeviceWaitIdle(device));
    ludus_vk_collect(vk); /* the last frames, now finished */
    ludus_capture_end(NULL);
    ludus_capture *c;
    if (ludus_capture_last(&c) == 0) {
        for (uint32_t t = 0; t < ludus_capture_gpu_track_count(c); t++) {
            ludus_gpu_track_info ti;
            ludus_capture_gpu_track(c, t, &ti);
            printf(
                "track %s: %s, %u calibration points, max error %lld ns, %llu passes, lanes %u; coverage: "
                "frames %llu not_ready %llu ring_full %llu lost %llu\n",
                ti.name, ti.calibrated ? "calibrated" : "uncalibrated", ti.calibration_points,
                (long long)ti.max_error_ns, (unsigned long long)ti.passes, ti.lanes,
                (unsigned long long)ti.coverage[LUDUS_GPU_FRAMES], (unsigned long long)ti.coverage[LUDUS_GPU_NOT_READY],
                (unsigned long long)ti.coverage[LUDUS_GPU_RING_FULL], (unsigned long long)ti.coverage[LUDUS_GPU_LOST]);
        }
        for (int i = 0; i < nouts; i++) {
            int format = ludus_format_from_path(outs[i]);
            rc = format ? ludus_capture_save(c, format, 0, outs[i]) : LUDUS_EINVAL;
            if (rc) {
                fprintf(stderr, "vulkan_compute: writing %s: %s\n", outs[i], ludus_last_error_detail());
                return 1;
            }
            printf("wrote %s\n", outs[i]);
        }
        ludus_capture_release(c);
    }
    ludus_vk_context_destroy(vk);
    for (int i = 0; i < in_flight; i++) vkDestroyFence(device, fences[i], NULL);
    vkDestroyCommandPool(device, pool, NULL);
    vkDestroyPipeline(device, pipeline, NULL);
    vkDestroyPipelineLayout(device, layout, NULL);
    vkDestroyBuffer(device, buffer, NULL);
    vkFreeMemory(device, memory, NULL);
    vkDestroyDevice(device, NULL);
    vkDestroyInstance(instance, NULL);
    return 0;
}
