//! Drawing into a native window: the desktop app's overlay window.

use crate::render::{Gpu, Renderer};
use crate::{OverlayError, Scene};

/// A window's surface, configured for its current size, with a renderer for it.
pub struct WindowOverlay {
    gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
}

impl std::fmt::Debug for WindowOverlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowOverlay")
            .field("gpu", &self.gpu)
            .field("size", &(self.config.width, self.config.height))
            .finish_non_exhaustive()
    }
}

impl WindowOverlay {
    /// Makes a surface for `window` (any window with raw handles, e.g. a Tauri `Window`) and
    /// picks an adapter that can present to it.
    ///
    /// # Errors
    /// No surface (e.g. an unsupported windowing system) or no adapter.
    pub fn new<W>(window: W, size: (u32, u32)) -> Result<Self, OverlayError>
    where
        W: wgpu::WindowHandle + wgpu::wgt::WgpuHasDisplayHandle + Clone + 'static,
    {
        // Vulkan needs no display handle on the instance (tao's handles do not compare equal
        // between calls); the GL fallback does
        let primary = Gpu::preferred_instance();
        primary
            .create_surface(window.clone())
            .map_err(|e| OverlayError::Surface(e.to_string()))
            .and_then(|surface| Self::finish(primary, surface, size))
            .or_else(|_| {
                let gl = Gpu::instance(Some(Box::new(window.clone())));
                let surface = gl
                    .create_surface(window)
                    .map_err(|e| OverlayError::Surface(e.to_string()))?;
                Self::finish(gl, surface, size)
            })
    }

    fn finish(
        instance: wgpu::Instance,
        surface: wgpu::Surface<'static>,
        size: (u32, u32),
    ) -> Result<Self, OverlayError> {
        let gpu = Gpu::new(instance, Some(&surface))?;
        let caps = surface.get_capabilities(&gpu.adapter);
        // colours are written as given (sRGB bytes): prefer a non-sRGB format
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| OverlayError::Surface("the surface supports no format".into()))?;
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.0.max(1),
            height: size.1.max(1),
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: Vec::new(),
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&gpu.device, &config);
        let renderer = Renderer::new(&gpu.device, &gpu.queue, format);
        Ok(Self {
            gpu,
            surface,
            config,
            renderer,
        })
    }

    /// The adapter in use.
    #[must_use]
    pub fn describe(&self) -> String {
        self.gpu.describe()
    }

    /// Draws `scene` at the window's current `size` (physical pixels) and presents it.
    ///
    /// # Errors
    /// The surface is lost for good (it is reconfigured and retried once first).
    pub fn draw(&mut self, scene: &Scene, size: (u32, u32)) -> Result<(), OverlayError> {
        let size = (size.0.max(1), size.1.max(1));
        if (self.config.width, self.config.height) != size {
            self.config.width = size.0;
            self.config.height = size.1;
            self.surface.configure(&self.gpu.device, &self.config);
        }
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            other => {
                self.surface.configure(&self.gpu.device, &self.config);
                match self.surface.get_current_texture() {
                    wgpu::CurrentSurfaceTexture::Success(t)
                    | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
                    again => {
                        return Err(OverlayError::Surface(format!(
                            "no frame to draw into: {other:?}, then {again:?}"
                        )));
                    }
                }
            }
        };
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.renderer.render(scene, &view, size);
        self.gpu.queue.present(frame);
        Ok(())
    }
}
