/* The Vulkan backend of GPU timing (<ludus/vulkan.h>, docs/gpu.md): a ring
 * of query slots per context, timestamps written around passes, results
 * read back without waiting and handed to the core (<ludus/gpu.h>), and
 * calibration through VK_KHR/EXT_calibrated_timestamps. Built only with
 * -DLUDUS_VULKAN=ON; only this file includes Vulkan. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ludus/capture.h>
#include <ludus/vulkan.h>

/* The calibration types of both extensions have the same layout (KHR is
 * EXT promoted); the names below are the KHR ones where the headers have
 * them. */
#ifndef VK_KHR_calibrated_timestamps
#define VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME "VK_KHR_calibrated_timestamps"
#endif

enum { SLOT_FREE, SLOT_RECORDING, SLOT_PENDING };

typedef struct pass_rec {
    const char *name;
    uint64_t flow_id;
} pass_rec;

typedef struct slot {
    int state;
    uint64_t frame;
    int64_t begin_cpu_ns;   /* ludus_vk_begin_frame: the frame's CPU submission */
    uint32_t npasses, open; /* passes begun; open: index of the pass begun and not ended, or UINT32_MAX */
    int not_ready_counted;
    pass_rec *passes;
} slot;

struct ludus_vk_context {
    VkDevice device;
    VkQueryPool pool;
    ludus_gpu_context *gpu;
    uint32_t nslots, max_passes, per_slot; /* queries per slot: 2 + 2 x max_passes */
    slot *slots;
    uint32_t head, tail; /* next slot to record; oldest pending */
    slot *cur;           /* the frame being recorded (NULL: none, or not timed) */
    uint64_t mask;       /* timestampValidBits */
    int calibration;
    PFN_vkGetCalibratedTimestampsEXT get_calibrated;
    uint64_t flow_serial, flow_count; /* a flow id: the context's serial (bits 40..62), a count */
    uint32_t flow_site;
    /* Results reach the CPU through a host-visible buffer the GPU copies
     * them into at the frame's end (vkCmdCopyQueryPoolResults): reading
     * it never calls into the driver, so collection cannot stall, even on
     * drivers whose vkGetQueryPoolResults waits for the queue (lavapipe). */
    VkBuffer buffer;
    VkDeviceMemory memory;
    uint64_t *mapped; /* per slot, per query: (value, availability) */
};

static uint32_t next_context_id = 1;

/* The host-visible, coherent buffer the results are copied into, mapped. */
static int make_buffer(ludus_vk_context *vk, const ludus_vk_context_desc *d) {
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = (VkDeviceSize)vk->nslots * vk->per_slot * 2 * sizeof(uint64_t);
    bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (vkCreateBuffer(d->device, &bi, NULL, &vk->buffer) != VK_SUCCESS) return LUDUS_EIO;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->device, vk->buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(d->physical_device, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < mp.memoryTypeCount &&
           !((req.memoryTypeBits & (1u << type)) && (mp.memoryTypes[type].propertyFlags & want) == want))
        type++;
    if (type == mp.memoryTypeCount) return LUDUS_EUNSUPPORTED;
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type};
    if (vkAllocateMemory(d->device, &ai, NULL, &vk->memory) != VK_SUCCESS) return LUDUS_EIO;
    if (vkBindBufferMemory(d->device, vk->buffer, vk->memory, 0) != VK_SUCCESS) return LUDUS_EIO;
    void *p;
    if (vkMapMemory(d->device, vk->memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) return LUDUS_EIO;
    vk->mapped = p;
    memset(p, 0, (size_t)bi.size);
    return 0;
}

int ludus_vk_calibration_extension(VkPhysicalDevice phys) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || !n)
        return LUDUS_VK_CALIBRATION_NONE;
    VkExtensionProperties *e = malloc(n * sizeof *e);
    if (!e) return LUDUS_VK_CALIBRATION_NONE;
    int got = LUDUS_VK_CALIBRATION_NONE;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, e) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) {
            if (!strcmp(e[i].extensionName, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME))
                got = LUDUS_VK_CALIBRATION_KHR;
            if (!strcmp(e[i].extensionName, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) && !got)
                got = LUDUS_VK_CALIBRATION_EXT;
        }
    free(e);
    return got;
}

const char *ludus_vk_calibration_name(int calibration) {
    return calibration == LUDUS_VK_CALIBRATION_KHR   ? VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME
           : calibration == LUDUS_VK_CALIBRATION_EXT ? VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME
                                                     : "none";
}

/* The calibration functions of the extension the device enabled, when the
 * physical device offers both the device domain and CLOCK_MONOTONIC (the
 * CPU trace clock). */
static void setup_calibration(ludus_vk_context *vk, const ludus_vk_context_desc *d) {
    if (d->calibration != LUDUS_VK_CALIBRATION_KHR && d->calibration != LUDUS_VK_CALIBRATION_EXT) return;
    int khr = d->calibration == LUDUS_VK_CALIBRATION_KHR;
    PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT domains =
        (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT)vkGetInstanceProcAddr(
            d->instance,
            khr ? "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR" : "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT");
    PFN_vkGetCalibratedTimestampsEXT get = (PFN_vkGetCalibratedTimestampsEXT)vkGetDeviceProcAddr(
        d->device, khr ? "vkGetCalibratedTimestampsKHR" : "vkGetCalibratedTimestampsEXT");
    if (!domains || !get) return;
    uint32_t n = 0;
    if (domains(d->physical_device, &n, NULL) != VK_SUCCESS || !n || n > 16) return;
    VkTimeDomainEXT dom[16];
    if (domains(d->physical_device, &n, dom) != VK_SUCCESS) return;
    int has_device = 0, has_mono = 0;
    for (uint32_t i = 0; i < n; i++) {
        has_device |= dom[i] == VK_TIME_DOMAIN_DEVICE_EXT;
        has_mono |= dom[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
    }
    if (!has_device || !has_mono) return;
    vk->get_calibrated = get;
    vk->calibration = d->calibration;
}

int ludus_vk_context_create(const ludus_vk_context_desc *d, ludus_vk_context **out) {
    if (!out) return LUDUS_EINVAL;
    *out = NULL;
    if (!d || !d->device || !d->physical_device || !d->instance) return LUDUS_EINVAL;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(d->physical_device, &props);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical_device, &nf, NULL);
    if (d->queue_family >= nf || nf > 64) return LUDUS_EINVAL;
    VkQueueFamilyProperties fam[64];
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical_device, &nf, fam);
    uint32_t bits = fam[d->queue_family].timestampValidBits;
    if (bits == 0 || !(props.limits.timestampPeriod > 0)) return LUDUS_EUNSUPPORTED;
    ludus_vk_context *vk = calloc(1, sizeof *vk);
    if (!vk) return LUDUS_ENOMEM;
    vk->device = d->device;
    vk->nslots = d->frames_in_flight ? d->frames_in_flight : 3;
    vk->max_passes = d->max_passes ? d->max_passes : 32;
    vk->per_slot = 2 + 2 * vk->max_passes;
    vk->mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    vk->slots = calloc(vk->nslots, sizeof *vk->slots);
    int rc = vk->slots ? 0 : LUDUS_ENOMEM;
    for (uint32_t i = 0; i < vk->nslots && rc == 0; i++)
        if (!(vk->slots[i].passes = calloc(vk->max_passes, sizeof *vk->slots[i].passes))) rc = LUDUS_ENOMEM;
    if (rc == 0) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = vk->nslots * vk->per_slot;
        if (vkCreateQueryPool(d->device, &qi, NULL, &vk->pool) != VK_SUCCESS) rc = LUDUS_EIO;
    }
    if (rc == 0) rc = make_buffer(vk, d);
    if (rc == 0) {
        char name[64];
        static const char *const qn[] = {"graphics", "compute", "copy"};
        int q = d->queue >= 0 && d->queue <= 2 ? d->queue : 0;
        if (!d->name) snprintf(name, sizeof name, "%.40s %s", props.deviceName, qn[q]);
        ludus_gpu_context_desc gd = {d->name ? d->name : name, props.deviceName, q, props.limits.timestampPeriod, bits};
        rc = ludus_gpu_context_create(&gd, &vk->gpu);
    }
    if (rc) {
        ludus_vk_context_destroy(vk);
        return rc;
    }
    setup_calibration(vk, d);
    vk->flow_serial = (uint64_t)__atomic_fetch_add(&next_context_id, 1, __ATOMIC_RELAXED) << 40;
    ludus_site_desc sd = {"GPU pass submitted", "gpu", NULL, 0};
    vk->flow_site = ludus_site_register(&sd);
    *out = vk;
    return 0;
}

void ludus_vk_context_destroy(ludus_vk_context *vk) {
    if (!vk) return;
    uint64_t lost = 0;
    for (uint32_t i = 0; vk->slots && i < vk->nslots; i++) {
        lost += vk->slots[i].state != SLOT_FREE;
        free(vk->slots[i].passes);
    }
    if (vk->gpu && lost) ludus_gpu_note_coverage(vk->gpu, LUDUS_GPU_LOST, lost);
    if (vk->pool) vkDestroyQueryPool(vk->device, vk->pool, NULL);
    if (vk->mapped) vkUnmapMemory(vk->device, vk->memory);
    if (vk->buffer) vkDestroyBuffer(vk->device, vk->buffer, NULL);
    if (vk->memory) vkFreeMemory(vk->device, vk->memory, NULL);
    ludus_gpu_context_destroy(vk->gpu);
    free(vk->slots);
    free(vk);
}

ludus_gpu_context *ludus_vk_gpu_context(ludus_vk_context *vk) {
    return vk ? vk->gpu : NULL;
}

int ludus_vk_calibration_used(const ludus_vk_context *vk) {
    return vk ? vk->calibration : LUDUS_VK_CALIBRATION_NONE;
}

static uint32_t slot_index(const ludus_vk_context *vk, const slot *s) {
    return (uint32_t)(s - vk->slots);
}

int ludus_vk_begin_frame(ludus_vk_context *vk, VkCommandBuffer cmd, uint64_t frame) {
    vk->cur = NULL;
    slot *s = &vk->slots[vk->head];
    if (s->state != SLOT_FREE) { /* every slot still in flight: this frame is not timed */
        ludus_gpu_note_coverage(vk->gpu, LUDUS_GPU_RING_FULL, 1);
        return LUDUS_EBUSY;
    }
    vk->head = (vk->head + 1) % vk->nslots;
    s->state = SLOT_RECORDING;
    s->frame = frame;
    s->npasses = 0;
    s->open = UINT32_MAX;
    s->not_ready_counted = 0;
    s->begin_cpu_ns = ludus_gpu_cpu_now_ns();
    uint32_t q0 = slot_index(vk, s) * vk->per_slot;
    memset(vk->mapped + (size_t)q0 * 2, 0, (size_t)vk->per_slot * 2 * sizeof(uint64_t)); /* the GPU is done with it */
    vkCmdResetQueryPool(cmd, vk->pool, q0, vk->per_slot);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk->pool, q0);
    vk->cur = s;
    return 0;
}

void ludus_vk_begin_pass(ludus_vk_context *vk, VkCommandBuffer cmd, const char *name) {
    slot *s = vk->cur;
    if (!s) return;
    if (s->npasses == vk->max_passes || s->open != UINT32_MAX) { /* no room, or nested: not timed */
        ludus_gpu_note_coverage(vk->gpu, LUDUS_GPU_INVALID, 1);
        return;
    }
    uint32_t k = s->npasses++;
    s->open = k;
    uint64_t flow = LUDUS_CALLER_FLOW_ID_BIT | vk->flow_serial | (++vk->flow_count & ((UINT64_C(1) << 40) - 1));
    s->passes[k] = (pass_rec){name, flow};
    ludus_flow_begin(vk->flow_site, flow); /* the CPU side of the pass's link (a no-op without a capture) */
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk->pool, slot_index(vk, s) * vk->per_slot + 2 + 2 * k);
}

void ludus_vk_end_pass(ludus_vk_context *vk, VkCommandBuffer cmd) {
    slot *s = vk->cur;
    if (!s || s->open == UINT32_MAX) return;
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->pool,
                        slot_index(vk, s) * vk->per_slot + 3 + 2 * s->open);
    s->open = UINT32_MAX;
}

void ludus_vk_end_frame(ludus_vk_context *vk, VkCommandBuffer cmd) {
    slot *s = vk->cur;
    if (!s) return;
    if (s->open != UINT32_MAX) ludus_vk_end_pass(vk, cmd);
    uint32_t q0 = slot_index(vk, s) * vk->per_slot;
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->pool, q0 + 1);
    /* the results into the mapped buffer, on the GPU's timeline (WAIT here
     * waits there, never on the CPU), then made visible to the host */
    vkCmdCopyQueryPoolResults(cmd, vk->pool, q0, 2 + 2 * s->npasses, vk->buffer, (VkDeviceSize)q0 * 16, 16,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT |
                                  VK_QUERY_RESULT_WAIT_BIT);
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    s->state = SLOT_PENDING;
    vk->cur = NULL;
}

/* One calibration pair, kept when the host value lies between the CPU
 * reads around the call (the domains match). */
static void calibrate(ludus_vk_context *vk) {
    if (!vk->get_calibrated) return;
    VkCalibratedTimestampInfoEXT info[2] = {
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, NULL, VK_TIME_DOMAIN_DEVICE_EXT},
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, NULL, VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
    uint64_t ts[2], dev = 0;
    int64_t before = ludus_gpu_cpu_now_ns();
    VkResult r = vk->get_calibrated(vk->device, 2, info, ts, &dev);
    int64_t after = ludus_gpu_cpu_now_ns();
    if (r != VK_SUCCESS) return;
    int64_t host = (int64_t)ts[1];
    if (host < before || host > after) { /* not our clock: say so, once per point */
        ludus_gpu_note_coverage(vk->gpu, LUDUS_GPU_CALIBRATION_REJECTED, 1);
        return;
    }
    int64_t deviation = (int64_t)dev;
    ludus_gpu_calibrate(vk->gpu, ts[0], host, deviation);
}

int ludus_vk_collect(ludus_vk_context *vk) {
    int got = 0;
    calibrate(vk);
    ludus_gpu_sample smp[66];
    while (vk->slots[vk->tail].state == SLOT_PENDING) {
        slot *s = &vk->slots[vk->tail];
        uint32_t nq = 2 + 2 * s->npasses;
        const uint64_t *res = vk->mapped + (size_t)slot_index(vk, s) * vk->per_slot * 2;
        /* the frame's end is copied last: once its availability is set, the
         * copy is complete (acquire: the values are read after it) */
        int ready = __atomic_load_n(&res[3], __ATOMIC_ACQUIRE) != 0;
        for (uint32_t q = 0; ready && q < nq; q++) ready = __atomic_load_n(&res[2 * q + 1], __ATOMIC_ACQUIRE) != 0;
        if (!ready) { /* not finished yet: it and the frames behind it wait for the next collection */
            if (!s->not_ready_counted) ludus_gpu_note_coverage(vk->gpu, LUDUS_GPU_NOT_READY, 1);
            s->not_ready_counted = 1;
            break;
        }
        uint32_t n = 0;
        smp[n++] = (ludus_gpu_sample){NULL, s->frame, res[0] & vk->mask, res[2] & vk->mask, 0, s->begin_cpu_ns, 0};
        for (uint32_t k = 0; k < s->npasses; k++) {
            uint64_t b = res[2 * (2 + 2 * k)] & vk->mask, e = res[2 * (3 + 2 * k)] & vk->mask;
            smp[n++] = (ludus_gpu_sample){s->passes[k].name, s->frame, b, e, 0, s->begin_cpu_ns, s->passes[k].flow_id};
            if (n == sizeof smp / sizeof *smp) {
                ludus_gpu_submit(vk->gpu, smp, n);
                n = 0;
            }
        }
        ludus_gpu_submit(vk->gpu, smp, n); /* LUDUS_ENOCAPTURE between captures: nothing kept */
        ludus_gpu_note_coverage(vk->gpu, LUDUS_GPU_FRAMES, 1);
        s->state = SLOT_FREE;
        vk->tail = (vk->tail + 1) % vk->nslots;
        got++;
    }
    return got;
}
