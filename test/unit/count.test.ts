import { count } from '../../src/views/count.ts';

describe('count', () => {
  it('says one thing in the singular and every other number in the plural', () => {
    expect(count(1, 'post')).toBe('1 post');
    expect(count(0, 'post')).toBe('0 posts');
    expect(count(2, 'scheduled post')).toBe('2 scheduled posts');
    expect(count(1200, 'image')).toBe('1,200 images');
    expect(count(3, 'reply', 'replies')).toBe('3 replies');
  });
});
