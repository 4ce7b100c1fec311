#version 450
// The example's compute pass: a few hundred multiply-adds per element, so a
// pass takes a measurable time on a software rasteriser.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { float v[]; } data;
layout(push_constant) uniform Push { uint n; uint iterations; float k; } push;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.n) return;
    float x = data.v[i];
    for (uint j = 0u; j < push.iterations; j++) x = x * push.k + 0.5;
    data.v[i] = x;
}
