/**
 * Instagram's checks of a post (IG User media reference, Content Publishing guide): media is required, images
 * are JPEG (Instagram fetches `image_url` and refuses other formats; a PNG is sent as a JPEG copy), feed images between 4:5 and 1.91:1,
 * captions of 2,200 characters with at most 30 hashtags, carousels of 2–10 items, reels and stories of one
 * video or image. The platform's own limit of one video per post applies too.
 */
import type { PostContent, ValidationIssue } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';
import {
  characters,
  hashtagsOf,
  INSTAGRAM_LIMITS,
  isImage,
  isVideo,
  META_RULES,
  optionsOf,
  type InstagramMediaType,
} from './meta-rules.ts';

type Issues = ValidationIssue[];

function checkInstagramMedia(media: PostMedia, index: number, type: InstagramMediaType, carousel: boolean): Issues {
  const field = `media.${index}`;
  const issues: Issues = [];
  if (isImage(media)) {
    // Instagram takes JPEG only; the platform sends a JPEG copy of a PNG (its renders), so only others are refused.
    if (!['image/jpeg', 'image/png'].includes(media.mimeType)) {
      issues.push({
        field,
        rule: 'image_format_not_supported',
        message: `Instagram takes JPEG images (the platform converts PNG), and this one is ${media.mimeType.replace('image/', '').toUpperCase()}: use a JPEG or PNG image, or post a video (a reel) instead`,
      });
    }
    if (media.bytes > INSTAGRAM_LIMITS.imageBytes) {
      issues.push({
        field,
        rule: 'image_too_large',
        message: `The image is ${media.bytes.toLocaleString('en-US')} bytes; Instagram takes at most ${INSTAGRAM_LIMITS.imageBytes.toLocaleString('en-US')}`,
      });
    }
    const ratio = media.height > 0 ? media.width / media.height : 1;
    const { minAspectRatio, maxAspectRatio } = INSTAGRAM_LIMITS;
    if (type !== 'story' && (ratio < minAspectRatio - 0.005 || ratio > maxAspectRatio + 0.005)) {
      issues.push({
        field,
        rule: 'aspect_ratio_not_supported',
        message: `The image is ${media.width}×${media.height} (${ratio.toFixed(2)}:1); Instagram feed images must be between 4:5 (0.8:1) and 1.91:1: crop it, or post it as a story`,
      });
    }
    if (type === 'reels') {
      issues.push({
        field,
        rule: 'reel_needs_video',
        message: 'A reel is a video: post the image to the feed instead',
      });
    }
    return issues;
  }
  if (!['video/mp4', 'video/quicktime'].includes(media.mimeType)) {
    issues.push({
      field,
      rule: 'video_format_not_supported',
      message: `Instagram takes MP4 or MOV videos, not ${media.mimeType}`,
    });
  }
  const seconds = media.durationSeconds;
  const max =
    type === 'story'
      ? INSTAGRAM_LIMITS.storyVideoSeconds
      : carousel
        ? INSTAGRAM_LIMITS.carouselVideoSeconds
        : INSTAGRAM_LIMITS.reelSeconds.max;
  if (seconds !== null && seconds > max) {
    issues.push({
      field,
      rule: 'video_too_long',
      message: `The video is ${Math.round(seconds)} s; Instagram takes at most ${max} s ${type === 'story' ? 'in a story' : carousel ? 'in a carousel' : 'in a reel'}`,
    });
  }
  if (seconds !== null && seconds < INSTAGRAM_LIMITS.reelSeconds.min) {
    issues.push({
      field,
      rule: 'video_too_short',
      message: `The video is ${seconds.toFixed(1)} s; Instagram takes videos of at least ${INSTAGRAM_LIMITS.reelSeconds.min} s`,
    });
  }
  return issues;
}

export function checkInstagram(content: PostContent, caption: string, issues: Issues, warnings: Issues): void {
  const type = optionsOf(content).instagramMediaType ?? 'feed';
  const media = content.media.filter((item) => isImage(item) || isVideo(item));
  if (media.length === 0) {
    issues.push({
      field: 'media',
      rule: 'media_required',
      message:
        'Instagram posts need an image or a video: add one (imageJobIds, or a variant with images), or post the text to a Facebook Page',
    });
  }
  if (characters(caption) > INSTAGRAM_LIMITS.captionLength) {
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `The caption is ${characters(caption)} characters${content.link ? ' with the link' : ''}; Instagram allows ${INSTAGRAM_LIMITS.captionLength}: shorten it by ${characters(caption) - INSTAGRAM_LIMITS.captionLength}`,
    });
  }
  const tags = hashtagsOf(caption);
  if (tags.length > INSTAGRAM_LIMITS.hashtags) {
    issues.push({
      field: 'text',
      rule: 'too_many_hashtags',
      message: `The caption has ${tags.length} hashtags; Instagram allows ${INSTAGRAM_LIMITS.hashtags}: remove ${tags.length - INSTAGRAM_LIMITS.hashtags}`,
    });
  }
  if (type === 'feed' && media.length > INSTAGRAM_LIMITS.carouselItems) {
    issues.push({
      field: 'media',
      rule: 'too_many_images',
      message: `An Instagram carousel carries at most ${INSTAGRAM_LIMITS.carouselItems} images and videos, not ${media.length}`,
    });
  }
  if (type === 'feed' && media.filter(isVideo).length > META_RULES.maxVideos) {
    issues.push({
      field: 'media',
      rule: 'too_many_videos',
      message: `A post carries at most ${META_RULES.maxVideos} video (the platform's limit)`,
    });
  }
  if ((type === 'reels' || type === 'story') && media.length > 1) {
    issues.push({
      field: 'media',
      rule: type === 'reels' ? 'reel_single_video' : 'story_single_media',
      message: `A${type === 'reels' ? ' reel carries one video' : ' story carries one image or video'}, not ${media.length}: post the others separately`,
    });
  }
  media.forEach((item) => {
    const index = content.media.indexOf(item);
    issues.push(...checkInstagramMedia(item, index, type, type === 'feed' && media.length > 1));
  });
  if (type === 'story' && (content.text.trim() || content.link)) {
    warnings.push({
      field: 'text',
      rule: 'story_caption_ignored',
      message: 'Instagram stories carry no caption: the text and link are not published with a story',
    });
  } else if (content.link) {
    warnings.push({
      field: 'text',
      rule: 'link_not_clickable',
      message: 'Instagram does not make links in captions clickable: the attributed link is in the caption as text',
    });
  }
  if (optionsOf(content).instagramShareToFeed !== undefined && !(type !== 'story' && media.some(isVideo))) {
    warnings.push({
      field: 'instagramShareToFeed',
      rule: 'option_ignored',
      message: 'instagramShareToFeed applies to reels only and is ignored',
    });
  }
}
